import Foundation
import KuraCore
import KuraModel
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// Sign-up, sign-in, tokens, the current account, verification and password reset over real HTTP, with mail held
/// in the outbox (no relay).
@Suite struct AuthFlowTests {
    @Test("sign-up answers 201 with the user and tokens, and holds a verification mail")
    func signUp() throws {
        try withAuthKura { kura in
            let response = try kura.request(
                "POST", "/api/auth/signup",
                json: ["email": "Ann@Example.com", "password": "secret-pw", "displayName": "Ann"], auth: .none)
            try #require(response.status == 201, "\(response)")
            let json = response.json
            let user = try #require(json["user"] as? [String: Any])
            #expect((user["uid"] as? String)?.count == 28)
            #expect(user["email"] as? String == "Ann@example.com")
            #expect(user["emailVerified"] as? Bool == false)
            #expect(user["displayName"] as? String == "Ann")
            #expect(user["disabled"] as? Bool == false)
            #expect((user["customClaims"] as? [String: Any])?.isEmpty == true)
            let createTime = try #require(user["createTime"] as? String)
            #expect(createTime.hasSuffix("Z") && createTime.contains("T"))
            #expect(user["passwordHash"] == nil)
            #expect((json["idToken"] as? String)?.split(separator: ".").count == 3)
            #expect((json["refreshToken"] as? String)?.isEmpty == false)
            #expect(json["expiresIn"] as? Int == 3600)
            #expect(json["verificationSent"] as? Bool == true)
            #expect(json.keys.sorted() == ["expiresIn", "idToken", "refreshToken", "user", "verificationSent"])

            let claims = jwtSegment(json["idToken"] as! String, 1)
            #expect(claims["sub"] as? String == user["uid"] as? String)
            #expect(claims["email"] as? String == "Ann@example.com")

            let mails = try kura.outbox()
            try #require(mails.count == 1)
            #expect(mails[0]["status"] as? String == "held")
            #expect(mails[0]["to"] as? String == "Ann@example.com")
            let link = try #require(mails[0]["actionLink"] as? String)
            #expect(link.hasPrefix("http://127.0.0.1:\(kura.port)/auth/action?mode=verifyEmail&code="))

            // A user without a display name gets null.
            let bob = try kura.signUp("bob@example.com")
            #expect(bob.user["displayName"] is NSNull)
        }
    }

    @Test(
        "sign-up errors: EMAIL_EXISTS, INVALID_EMAIL, WEAK_PASSWORD, MISSING_PASSWORD",
        arguments: TestKura.Mode.allCases)
    func signUpErrors(mode: TestKura.Mode) throws {
        try withAuthKura(mode: mode) { kura in
            try kura.signUp("ann@example.com")
            func signUp(_ body: [String: Any]) throws -> HTTPResponse {
                try kura.request("POST", "/api/auth/signup", json: body, auth: .none)
            }
            expectError(try signUp(["email": "ann@example.com", "password": "another-pw"]), 400, .emailExists)
            expectError(try signUp(["email": "ANN@EXAMPLE.COM", "password": "another-pw"]), 400, .emailExists)
            expectError(try signUp(["email": "not-an-address", "password": "secret-pw"]), 400, .invalidEmail)
            expectError(try signUp(["password": "secret-pw"]), 400, .invalidEmail)
            expectError(try signUp(["email": "cy@example.com", "password": "12345"]), 400, .weakPassword)
            expectError(try signUp(["email": "cy@example.com", "password": ""]), 400, .missingPassword)
            expectError(try signUp(["email": "cy@example.com"]), 400, .missingPassword)
            expectError(
                try signUp(["email": "cy@example.com", "password": "secret-pw", "admin": true]), 400, .invalidArgument
            )
            // None of the refused sign-ups made an account or a mail.
            let users = try kura.request("GET", "/api/admin/users").json["users"] as? [[String: Any]]
            #expect(users?.count == 1)
            #expect(try kura.outbox().count == 1)
        }
    }

    @Test(
        "sign-in: tokens on success; INVALID_LOGIN_CREDENTIALS alike for a wrong password and an unknown address",
        arguments: TestKura.Mode.allCases)
    func signIn(mode: TestKura.Mode) throws {
        try withAuthKura(mode: mode) { kura in
            let first = try kura.signUp("ann@example.com", "secret-pw")
            let session = try kura.signIn("ANN@example.com", "secret-pw")
            #expect(session.uid == first.uid)
            #expect(session.idToken != first.idToken)
            #expect(session.refreshToken != first.refreshToken)
            #expect(try kura.me(session.idToken).status == 200)

            let wrong = try kura.signInResponse("ann@example.com", "wrong-password")
            let unknown = try kura.signInResponse("nobody@example.com", "wrong-password")
            expectError(wrong, 400, .invalidLoginCredentials)
            expectError(unknown, 400, .invalidLoginCredentials)
            #expect(wrong.json["error"] as? NSDictionary == unknown.json["error"] as? NSDictionary)
            expectError(try kura.signInResponse("ann@example.com", ""), 400, .missingPassword)
            expectError(try kura.signInResponse("ann at example.com", "secret-pw"), 400, .invalidEmail)
        }
    }

    @Test("GET, PATCH and DELETE /api/auth/me")
    func me() throws {
        try withAuthKura { kura in
            let ann = try kura.signUp("ann@example.com", displayName: "Ann")
            let me = try kura.me(ann.idToken)
            try #require(me.status == 200, "\(me)")
            let user = try #require(me.json["user"] as? [String: Any])
            #expect(NSDictionary(dictionary: user) == NSDictionary(dictionary: ann.user))

            // Display name: set, then cleared with null.
            var patched = try kura.request("PATCH", "/api/auth/me", json: ["displayName": "Annie"], token: ann.idToken)
            #expect(patched.status == 200, "\(patched)")
            #expect((patched.json["user"] as? [String: Any])?["displayName"] as? String == "Annie")
            patched = try kura.request("PATCH", "/api/auth/me", json: ["displayName": NSNull()], token: ann.idToken)
            #expect((patched.json["user"] as? [String: Any])?["displayName"] is NSNull)
            expectError(
                try kura.request("PATCH", "/api/auth/me", json: ["disabled": true], token: ann.idToken), 400,
                .invalidArgument)
            expectError(
                try kura.request("PATCH", "/api/auth/me", json: ["password": "123"], token: ann.idToken), 400,
                .weakPassword)
            expectError(
                try kura.request("PATCH", "/api/auth/me", json: ["password": ""], token: ann.idToken), 400,
                .missingPassword)

            // A password change keeps this session, signs out the others.
            let other = try kura.signIn("ann@example.com")
            patched = try kura.request("PATCH", "/api/auth/me", json: ["password": "new-secret"], token: ann.idToken)
            #expect(patched.status == 200, "\(patched)")
            #expect(try kura.me(ann.idToken).status == 200)
            expectError(try kura.me(other.idToken), 401, .invalidIDToken)
            expectError(try kura.refresh(other.refreshToken), 400, .invalidRefreshToken)
            expectError(try kura.signInResponse("ann@example.com", "secret-pw"), 400, .invalidLoginCredentials)
            let fresh = try kura.signIn("ann@example.com", "new-secret")

            // Without credentials, with garbage, with the admin key.
            expectError(try kura.request("GET", "/api/auth/me", auth: .none), 401, .unauthenticated)
            expectError(try kura.me("not.a.token"), 401, .invalidIDToken)
            expectError(try kura.me(String(fresh.idToken.dropLast(3)) + "AAA"), 401, .invalidIDToken)
            expectError(try kura.request("GET", "/api/auth/me"), 401, .unauthenticated)
            expectError(try kura.request("DELETE", "/api/auth/me", auth: .none), 401, .unauthenticated)

            // Delete: 204, then the account and its tokens are gone.
            let deleted = try kura.request("DELETE", "/api/auth/me", token: fresh.idToken)
            #expect(deleted.status == 204, "\(deleted)")
            expectError(try kura.me(fresh.idToken), 401, .invalidIDToken)
            expectError(try kura.me(ann.idToken), 401, .invalidIDToken)
            expectError(try kura.refresh(fresh.refreshToken), 400, .invalidRefreshToken)
            expectError(try kura.signInResponse("ann@example.com", "new-secret"), 400, .invalidLoginCredentials)
            expectError(try kura.request("GET", "/api/admin/users/\(ann.uid)"), 404, .userNotFound)
            // The address is free again.
            #expect(try kura.signUp("ann@example.com").uid != ann.uid)
        }
    }

    @Test("an email change is mailed to the new address and applied by its code")
    func emailChange() throws {
        try withAuthKura { kura in
            let ann = try kura.signUp("ann@example.com")
            try kura.signUp("bob@example.com")
            expectError(
                try kura.request("PATCH", "/api/auth/me", json: ["email": "BOB@example.com"], token: ann.idToken), 400,
                .emailExists)
            expectError(
                try kura.request("PATCH", "/api/auth/me", json: ["email": "nope"], token: ann.idToken), 400,
                .invalidEmail)
            let patched = try kura.request(
                "PATCH", "/api/auth/me", json: ["email": "ann@new.example"], token: ann.idToken)
            try #require(patched.status == 200, "\(patched)")
            #expect(patched.json["pendingEmail"] as? String == "ann@new.example")
            #expect((patched.json["user"] as? [String: Any])?["email"] as? String == "ann@example.com")
            let link = try kura.heldLink(to: "ann@new.example", mode: "verifyEmail")
            let code = try #require(queryItem(link, "code"))
            let confirmed = try kura.request(
                "POST", "/api/auth/verify-email/confirm", json: ["code": code], auth: .none)
            try #require(confirmed.status == 200, "\(confirmed)")
            let user = confirmed.json["user"] as? [String: Any]
            #expect(user?["email"] as? String == "ann@new.example")
            #expect(user?["emailVerified"] as? Bool == true)
            // The session survives and sees the new address; sign-in uses it.
            #expect((try kura.me(ann.idToken).json["user"] as? [String: Any])?["email"] as? String == "ann@new.example")
            #expect(try kura.signIn("ann@new.example").uid == ann.uid)
            expectError(try kura.signInResponse("ann@example.com", "secret-pw"), 400, .invalidLoginCredentials)
        }
    }

    @Test("refresh rotates the refresh token; reusing a rotated one revokes the whole family")
    func refreshRotationAndReuse() throws {
        try withAuthKura { kura in
            let ann = try kura.signUp("ann@example.com")
            let bystander = try kura.signIn("ann@example.com")

            let first = try kura.refresh(ann.refreshToken)
            try #require(first.status == 200, "\(first)")
            let second = try Session(first)
            #expect(second.uid == ann.uid)
            #expect(second.refreshToken != ann.refreshToken)
            #expect(first.json["expiresIn"] as? Int == 3600)
            // The refreshed ID token keeps the session's sign-in time and works.
            #expect(
                jwtSegment(second.idToken, 1)["auth_time"] as? Int == jwtSegment(ann.idToken, 1)["auth_time"] as? Int)
            #expect(try kura.me(second.idToken).status == 200)

            let third = try Session(try kura.refresh(second.refreshToken))
            #expect(try kura.me(third.idToken).status == 200)

            // Replay of the first (rotated) token: refused, and the family is revoked.
            expectError(try kura.refresh(ann.refreshToken), 400, .invalidRefreshToken)
            expectError(try kura.refresh(third.refreshToken), 400, .invalidRefreshToken)
            expectError(try kura.me(third.idToken), 401, .invalidIDToken)
            expectError(try kura.me(ann.idToken), 401, .invalidIDToken)

            // Another session of the same user is not part of that family.
            #expect(try kura.me(bystander.idToken).status == 200)
            #expect(try kura.refresh(bystander.refreshToken).status == 200)

            expectError(try kura.refresh("garbage"), 400, .invalidRefreshToken)
            expectError(try kura.refresh(""), 400, .invalidRefreshToken)
            expectError(
                try kura.request("POST", "/api/auth/refresh", json: [String: Any](), auth: .none), 400,
                .invalidRefreshToken)
        }
    }

    @Test("sign-out ends this session, or every session with all:true")
    func signOut() throws {
        try withAuthKura { kura in
            let ann = try kura.signUp("ann@example.com")
            let phone = try kura.signIn("ann@example.com")
            let tablet = try kura.signIn("ann@example.com")
            expectError(try kura.request("POST", "/api/auth/signout", auth: .none), 401, .unauthenticated)

            let out = try kura.request("POST", "/api/auth/signout", token: ann.idToken)
            #expect(out.status == 200, "\(out)")
            expectError(try kura.me(ann.idToken), 401, .invalidIDToken)
            expectError(try kura.refresh(ann.refreshToken), 400, .invalidRefreshToken)
            #expect(try kura.me(phone.idToken).status == 200)

            let all = try kura.request("POST", "/api/auth/signout", json: ["all": true], token: phone.idToken)
            #expect(all.status == 200, "\(all)")
            for session in [phone, tablet] {
                expectError(try kura.me(session.idToken), 401, .invalidIDToken)
                expectError(try kura.refresh(session.refreshToken), 400, .invalidRefreshToken)
            }
            #expect(try kura.signIn("ann@example.com").uid == ann.uid)
        }
    }

    @Test("email verification: request, confirm once; INVALID_OOB_CODE otherwise")
    func verifyEmail() throws {
        try withAuthKura { kura in
            let ann = try kura.signUp("ann@example.com")
            expectError(try kura.request("POST", "/api/auth/verify-email", auth: .none), 401, .unauthenticated)
            let sent = try kura.request("POST", "/api/auth/verify-email", token: ann.idToken)
            #expect(sent.status == 200, "\(sent)")
            let mails = try kura.outbox()
            #expect(mails.count == 2)
            let link = try kura.heldLink(to: "ann@example.com", mode: "verifyEmail")
            let code = try #require(queryItem(link, "code"))

            func confirm(_ body: [String: Any]) throws -> HTTPResponse {
                try kura.request("POST", "/api/auth/verify-email/confirm", json: body, auth: .none)
            }
            expectError(try confirm(["code": "bogus"]), 400, .invalidOOBCode)
            expectError(try confirm([:]), 400, .invalidOOBCode)
            let confirmed = try confirm(["code": code])
            try #require(confirmed.status == 200, "\(confirmed)")
            #expect((confirmed.json["user"] as? [String: Any])?["emailVerified"] as? Bool == true)
            expectError(try confirm(["code": code]), 400, .invalidOOBCode)
            #expect((try kura.me(ann.idToken).json["user"] as? [String: Any])?["emailVerified"] as? Bool == true)
            // A reset code is not a verification code.
            #expect(
                try kura.request("POST", "/api/auth/password-reset", json: ["email": "ann@example.com"]).status == 200)
            let reset = try #require(queryItem(try kura.heldLink(to: "ann@example.com", mode: "resetPassword"), "code"))
            expectError(try confirm(["code": reset]), 400, .invalidOOBCode)
            // New ID tokens carry the verified flag.
            #expect(jwtSegment(try kura.signIn("ann@example.com").idToken, 1)["email_verified"] as? Bool == true)
        }
    }

    @Test("expired action codes: EXPIRED_OOB_CODE for verification and reset")
    func expiredCodes() throws {
        try withAuthKura(configure: {
            $0.auth.verificationCodeLifetime = 0
            $0.auth.passwordResetCodeLifetime = 0
        }) { kura in
            try kura.signUp("ann@example.com")
            let verify = try #require(queryItem(try kura.heldLink(to: "ann@example.com", mode: "verifyEmail"), "code"))
            expectError(
                try kura.request("POST", "/api/auth/verify-email/confirm", json: ["code": verify], auth: .none), 400,
                .expiredOOBCode)
            #expect(
                try kura.request("POST", "/api/auth/password-reset", json: ["email": "ann@example.com"]).status == 200)
            let reset = try #require(queryItem(try kura.heldLink(to: "ann@example.com", mode: "resetPassword"), "code"))
            expectError(
                try kura.request(
                    "POST", "/api/auth/password-reset/confirm", json: ["code": reset, "newPassword": "new-secret"],
                    auth: .none), 400, .expiredOOBCode)
            let page = try kura.submitActionForm([
                ("mode", "resetPassword"), ("code", reset), ("newPassword", "abcdefg"),
            ])
            #expect(page.status == 400)
            #expect(page.body.contains("EXPIRED_OOB_CODE"))
            #expect(try kura.signIn("ann@example.com").uid.isEmpty == false)
        }
    }

    @Test("password reset over the API: 200 for any address, code sets the password and revokes sessions")
    func passwordReset() throws {
        try withAuthKura { kura in
            let ann = try kura.signUp("ann@example.com")
            func reset(_ email: String) throws -> HTTPResponse {
                try kura.request("POST", "/api/auth/password-reset", json: ["email": email], auth: .none)
            }
            let unknown = try reset("nobody@example.com")
            #expect(unknown.status == 200)
            #expect(unknown.body == "{}")
            #expect(try kura.outbox().count == 1)  // only the sign-up verification
            expectError(try reset("not-an-address"), 400, .invalidEmail)

            let known = try reset("ANN@example.com")
            #expect(known.status == 200)
            #expect(known.body == unknown.body)
            let mail = try #require(try kura.outbox().first)
            #expect((mail["to"] as? String)?.lowercased() == "ann@example.com")  // spelling: passwordResetSpelling
            let link = try #require(mail["actionLink"] as? String)
            let code = try #require(queryItem(link, "code"))

            func confirm(_ body: [String: Any]) throws -> HTTPResponse {
                try kura.request("POST", "/api/auth/password-reset/confirm", json: body, auth: .none)
            }
            // Password problems are reported before the code is spent.
            expectError(try confirm(["code": code, "newPassword": "123"]), 400, .weakPassword)
            expectError(try confirm(["code": code]), 400, .missingPassword)
            expectError(try confirm(["code": "bogus", "newPassword": "new-secret"]), 400, .invalidOOBCode)
            expectError(try confirm(["newPassword": "new-secret"]), 400, .invalidOOBCode)
            let done = try confirm(["code": code, "newPassword": "new-secret"])
            #expect(done.status == 200, "\(done)")
            expectError(try confirm(["code": code, "newPassword": "other-secret"]), 400, .invalidOOBCode)

            expectError(try kura.signInResponse("ann@example.com", "secret-pw"), 400, .invalidLoginCredentials)
            let fresh = try kura.signIn("ann@example.com", "new-secret")
            #expect(fresh.user["emailVerified"] as? Bool == true)
            expectError(try kura.me(ann.idToken), 401, .invalidIDToken)
            expectError(try kura.refresh(ann.refreshToken), 400, .invalidRefreshToken)
            #expect(try kura.me(fresh.idToken).status == 200)
        }
    }

    @Test("a reset request with the address in another spelling (case, spaces) mails the account's address")
    func passwordResetSpelling() throws {
        try withAuthKura { kura in
            try kura.signUp("ann@example.com")
            let unknown = try kura.request(
                "POST", "/api/auth/password-reset", json: ["email": " nobody@example.com "], auth: .none)
            #expect(unknown.status == 200, "\(unknown)")
            // Sign-in accepts the address with surrounding spaces; so must reset, with the same answer as above.
            #expect(try kura.signInResponse(" ann@example.com ", "secret-pw").status == 200)
            let known = try kura.request(
                "POST", "/api/auth/password-reset", json: ["email": " ann@example.com "], auth: .none)
            #expect(known.status == 200, "\(known)")
            #expect(known.body == unknown.body)
            let mails = try kura.outbox()
            #expect(mails.count == 2)
            #expect(mails.first?["to"] as? String == "ann@example.com", "\(mails)")
        }
    }

    @Test("EMAIL_NOT_VERIFIED until the address is verified, with auth.requireVerifiedEmail")
    func emailNotVerified() throws {
        try withAuthKura(configure: { $0.auth.requireVerifiedEmail = true }) { kura in
            let uid = try kura.signUpWithoutSession("ann@example.com")
            expectError(try kura.signInResponse("ann@example.com", "secret-pw"), 403, .emailNotVerified)
            // A wrong password is still just wrong credentials (no hint that the account exists).
            expectError(try kura.signInResponse("ann@example.com", "wrong-pw"), 400, .invalidLoginCredentials)
            try kura.adminUpdate(uid, ["emailVerified": true])
            #expect(try kura.signIn("ann@example.com").uid == uid)
        }
    }

    @Test("USER_DISABLED for sign-in, refresh and tokens of a disabled account; reset mails are not sent")
    func userDisabled() throws {
        try withAuthKura { kura in
            let ann = try kura.signUp("ann@example.com")
            #expect(try kura.me(ann.idToken).status == 200)
            try kura.adminUpdate(ann.uid, ["disabled": true])
            expectError(try kura.signInResponse("ann@example.com", "secret-pw"), 403, .userDisabled)
            let me = try kura.me(ann.idToken)
            #expect(me.status == 403 || me.status == 401, "\(me)")
            #expect(["USER_DISABLED", "INVALID_ID_TOKEN"].contains(me.errorCode ?? ""), "\(me)")
            expectError(try kura.refresh(ann.refreshToken), 403, .userDisabled)
            let mails = try kura.outbox().count
            #expect(
                try kura.request("POST", "/api/auth/password-reset", json: ["email": "ann@example.com"]).status == 200)
            #expect(try kura.outbox().count == mails)

            try kura.adminUpdate(ann.uid, ["disabled": false])
            #expect(try kura.signIn("ann@example.com").uid == ann.uid)
        }
    }

    @Test("TOKEN_EXPIRED once the ID token's lifetime is over; refresh gives a working one")
    func tokenExpired() throws {
        try withAuthKura(configure: { $0.auth.idTokenLifetime = 1 }) { kura in
            let ann = try kura.signUp("ann@example.com")
            #expect(ann.user["uid"] != nil)
            var last = HTTPResponse()
            let expired = try waitUntil(timeout: 4) {
                last = try kura.me(ann.idToken)
                return last.status != 200
            }
            #expect(expired)
            expectError(last, 401, .tokenExpired)
            expectError(try kura.request("POST", "/api/auth/signout", token: ann.idToken), 401, .tokenExpired)
            // A 1 s token issued just before a second boundary may already be stale when used: a few tries.
            var refreshToken = ann.refreshToken
            var worked = false
            for _ in 0..<3 where !worked {
                let refreshed = try kura.refresh(refreshToken)
                #expect(refreshed.json["expiresIn"] as? Int == 1, "\(refreshed)")
                let session = try Session(refreshed)
                refreshToken = session.refreshToken
                worked = try kura.me(session.idToken).status == 200
            }
            #expect(worked)
        }
    }

    @Test("CREDENTIAL_TOO_OLD_LOGIN_AGAIN for password/email changes and deletion after the recent-login window")
    func credentialTooOld() throws {
        try withAuthKura(configure: { $0.auth.recentLoginWindow = 1 }) { kura in
            let ann = try kura.signUp("ann@example.com")
            let recent = try kura.request("PATCH", "/api/auth/me", json: ["password": "secret-pw2"], token: ann.idToken)
            #expect(recent.status == 200, "\(recent)")
            var last = HTTPResponse()
            let tooOld = try waitUntil(timeout: 4) {
                last = try kura.request(
                    "PATCH", "/api/auth/me", json: ["email": "ann2@example.com"], token: ann.idToken)
                return last.status != 200
            }
            #expect(tooOld)
            expectError(last, 401, .credentialTooOldLoginAgain)
            expectError(
                try kura.request("PATCH", "/api/auth/me", json: ["password": "secret-pw3"], token: ann.idToken), 401,
                .credentialTooOldLoginAgain)
            expectError(
                try kura.request("DELETE", "/api/auth/me", token: ann.idToken), 401, .credentialTooOldLoginAgain)
            // The display name needs no recent sign-in; a refresh does not renew the sign-in time.
            #expect(
                try kura.request("PATCH", "/api/auth/me", json: ["displayName": "A"], token: ann.idToken).status == 200)
            let refreshed = try Session(try kura.refresh(ann.refreshToken))
            expectError(
                try kura.request("DELETE", "/api/auth/me", token: refreshed.idToken), 401,
                .credentialTooOldLoginAgain)
            // Signing in again does.
            let fresh = try kura.signIn("ann@example.com", "secret-pw2")
            #expect(try kura.request("DELETE", "/api/auth/me", token: fresh.idToken).status == 204)
        }
    }

    @Test("GET /api/auth/keys is a JWKS with the key that signs ID tokens")
    func jwks() throws {
        try withAuthKura { kura in
            let response = try kura.request("GET", "/api/auth/keys", auth: .none)
            #expect(response.status == 200)
            let keys = try #require(response.json["keys"] as? [[String: Any]])
            try #require(keys.isEmpty == false)
            for key in keys {
                #expect(key["kty"] as? String == "OKP")
                #expect(key["crv"] as? String == "Ed25519")
                #expect(key["alg"] as? String == "EdDSA")
                #expect(key["use"] as? String == "sig")
                #expect((key["x"] as? String)?.count == 43)
                #expect(key["d"] == nil)
            }
            let token = try kura.signUp("ann@example.com").idToken
            let header = jwtSegment(token, 0)
            #expect(header["alg"] as? String == "EdDSA")
            #expect(header["kid"] as? String == keys[0]["kid"] as? String)
        }
    }
}
