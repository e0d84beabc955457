import Foundation
import KuraCore
import KuraModel
import KuraServer
import KuraServerTestSupport
import Testing

/// `/api/admin/users` and `/api/admin/outbox`: who may call them, and what they do.
@Suite struct AuthAdminTests {
    @Test("listing pages through every account in uid order")
    func listUsers() throws {
        try withAuthKura { kura in
            var uids: [String] = []
            for i in 0..<5 { uids.append(try kura.signUp("user\(i)@example.com").uid) }
            var seen: [String] = []
            var token: String? = nil
            var pages = 0
            repeat {
                var target = "/api/admin/users?pageSize=2"
                if let token { target += "&pageToken=\(token)" }
                let response = try kura.request("GET", target)
                try #require(response.status == 200, "\(response)")
                let users = try #require(response.json["users"] as? [[String: Any]])
                #expect(users.count <= 2)
                seen += users.compactMap { $0["uid"] as? String }
                for user in users { #expect(user["passwordHash"] == nil && user["email"] is String) }
                token = response.json["nextPageToken"] as? String
                pages += 1
            } while token != nil && pages < 10
            #expect(pages == 3)
            #expect(seen == uids.sorted())

            let all = try kura.request("GET", "/api/admin/users")
            #expect((all.json["users"] as? [[String: Any]])?.count == 5)
            #expect(all.json["nextPageToken"] == nil)
            expectError(try kura.request("GET", "/api/admin/users?pageSize=x"), 400, .invalidArgument)
            expectError(try kura.request("GET", "/api/admin/users?pageToken=%25%25"), 400, .invalidArgument)
        }
    }

    @Test("get, update and delete one account")
    func getUpdateDelete() throws {
        try withAuthKura { kura in
            let ann = try kura.signUp("ann@example.com", displayName: "Ann")
            let got = try kura.request("GET", "/api/admin/users/\(ann.uid)")
            #expect(got.status == 200)
            // The admin's view adds the last sign-in (none yet: sign-up is not a sign-in) to what the user sees.
            var adminView = got.json["user"] as? [String: Any] ?? [:]
            #expect(adminView.removeValue(forKey: "lastSignInTime") is NSNull)
            #expect(NSDictionary(dictionary: adminView) == NSDictionary(dictionary: ann.user))
            expectError(try kura.request("GET", "/api/admin/users/nobody"), 404, .userNotFound)
            expectError(
                try kura.request("PATCH", "/api/admin/users/nobody", json: ["disabled": true]), 404, .userNotFound)
            expectError(try kura.request("DELETE", "/api/admin/users/nobody"), 404, .userNotFound)

            let updated = try kura.adminUpdate(
                ann.uid,
                [
                    "customClaims": ["role": "editor", "admin": false], "emailVerified": true, "displayName": "Ann B",
                    "email": "ann.b@example.com",
                ])
            let user = try #require(updated.json["user"] as? [String: Any])
            #expect(user["email"] as? String == "ann.b@example.com")
            #expect(user["emailVerified"] as? Bool == true)
            #expect(user["displayName"] as? String == "Ann B")
            #expect(
                NSDictionary(dictionary: user["customClaims"] as? [String: Any] ?? [:])
                    == NSDictionary(dictionary: ["role": "editor", "admin": false]))
            // Claims reach ID tokens issued from now on.
            let refreshed = try Session(try kura.refresh(ann.refreshToken))
            #expect(jwtSegment(refreshed.idToken, 1)["role"] as? String == "editor")
            #expect(try kura.signIn("ann.b@example.com").uid == ann.uid)

            expectError(
                try kura.request("PATCH", "/api/admin/users/\(ann.uid)", json: ["customClaims": ["sub": "x"]]), 400,
                .invalidClaims)
            expectError(
                try kura.request("PATCH", "/api/admin/users/\(ann.uid)", json: ["password": "123"]), 400,
                .weakPassword)
            expectError(
                try kura.request("PATCH", "/api/admin/users/\(ann.uid)", json: ["email": "bad"]), 400, .invalidEmail)
            expectError(
                try kura.request("PATCH", "/api/admin/users/\(ann.uid)", json: ["uid": "x"]), 400, .invalidArgument)

            // A password set by the administrator signs out every session.
            try kura.adminUpdate(ann.uid, ["password": "admin-set"])
            expectError(try kura.me(refreshed.idToken), 401, .invalidIDToken)
            expectError(try kura.refresh(refreshed.refreshToken), 400, .invalidRefreshToken)
            let fresh = try kura.signIn("ann.b@example.com", "admin-set")

            let deleted = try kura.request("DELETE", "/api/admin/users/\(ann.uid)")
            #expect(deleted.status == 204)
            expectError(try kura.request("GET", "/api/admin/users/\(ann.uid)"), 404, .userNotFound)
            expectError(try kura.me(fresh.idToken), 401, .invalidIDToken)
            expectError(try kura.signInResponse("ann.b@example.com", "admin-set"), 400, .invalidLoginCredentials)
        }
    }

    @Test("an administrator cannot move an account onto an address another account has: EMAIL_EXISTS")
    func adminEmailExists() throws {
        try withAuthKura { kura in
            let ann = try kura.signUp("ann@example.com")
            try kura.signUp("bob@example.com")
            let response = try kura.request("PATCH", "/api/admin/users/\(ann.uid)", json: ["email": "Bob@example.com"])
            expectError(response, 400, .emailExists)
            // Whatever the answer, both accounts keep their addresses and still sign in.
            #expect(try kura.signIn("ann@example.com").uid == ann.uid)
            #expect(try kura.signInResponse("bob@example.com", "secret-pw").status == 200)
        }
    }

    @Test("admin routes: UNAUTHENTICATED without credentials, PERMISSION_DENIED for users, open to admin:true")
    func access() throws {
        try withAuthKura { kura in
            let ann = try kura.signUp("ann@example.com")
            let boss = try kura.signUp("boss@example.com")
            let routes: [(String, String, Any?)] = [
                ("GET", "/api/admin/users", nil), ("GET", "/api/admin/users/\(ann.uid)", nil),
                ("PATCH", "/api/admin/users/\(ann.uid)", ["displayName": "x"]),
                ("DELETE", "/api/admin/users/\(ann.uid)", nil), ("GET", "/api/admin/outbox", nil),
            ]
            for (method, target, body) in routes {
                expectError(try kura.request(method, target, json: body, auth: .none), 401, .unauthenticated)
                expectError(try kura.request(method, target, json: body, token: ann.idToken), 403, .permissionDenied)
                expectError(
                    try kura.request(method, target, json: body, auth: .header("Bearer nope")), 401, .invalidIDToken)
            }
            try kura.adminUpdate(boss.uid, ["customClaims": ["admin": true]])
            // The claim counts at once, for the token issued before the change too (claims are the account's as it
            // is now, AuthClaimsTests), and new tokens carry it.
            #expect(try kura.request("GET", "/api/admin/users", token: boss.idToken).status == 200)
            let promoted = try Session(try kura.refresh(boss.refreshToken))
            #expect(jwtSegment(promoted.idToken, 1)["admin"] as? Bool == true)
            #expect(try kura.request("GET", "/api/admin/users", token: promoted.idToken).status == 200)
            #expect(try kura.request("GET", "/api/admin/outbox", token: promoted.idToken).status == 200)
            #expect(
                try kura.request(
                    "PATCH", "/api/admin/users/\(ann.uid)", json: ["disabled": true], token: promoted.idToken
                ).status == 200)
            expectError(try kura.signInResponse("ann@example.com", "secret-pw"), 403, .userDisabled)
        }
    }

    @Test("the outbox lists mails newest first, filters by status and honours limit")
    func outbox() throws {
        try withAuthKura { kura in
            for i in 0..<3 { try kura.signUp("user\(i)@example.com") }
            let mails = try kura.outbox()
            #expect(
                mails.map { $0["to"] as? String } == ["user2@example.com", "user1@example.com", "user0@example.com"])
            for mail in mails {
                #expect(mail["status"] as? String == "held")
                #expect((mail["id"] as? String)?.isEmpty == false)
                #expect((mail["subject"] as? String)?.isEmpty == false)
                #expect(mail["attempts"] as? Int == 0)
                #expect(mail["createTime"] is String)
                #expect(mail["lastError"] == nil)
            }
            #expect(try kura.outbox("?limit=2").count == 2)
            #expect(try kura.outbox("?status=held").count == 3)
            #expect(try kura.outbox("?status=sent").isEmpty)
            expectError(try kura.request("GET", "/api/admin/outbox?status=lost"), 400, .invalidArgument)
        }
    }
}
