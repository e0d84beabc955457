import Foundation
import KuraCore
import KuraModel
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// `auth.requireVerifiedEmail = true`: an unverified account reaches no data on any path. Sign-up creates the
/// account without a session, sign-in and refresh refuse, and a token the account already had (issued before
/// its verification was withdrawn) reaches only the account endpoints.
@Suite struct AuthVerifiedEmailTests {
    private static func requireVerified(_ configuration: inout KuraConfiguration) {
        configuration.auth.requireVerifiedEmail = true
    }

    @Test("sign-up returns the account without tokens and mails the verification; after it, sign-in works")
    func signUpThenVerify() throws {
        try withRulesKura(configure: Self.requireVerified) { server in
            let response = try server.request(
                "POST", "/api/auth/signup", json: ["email": "ann@example.com", "password": "secret-pw"], auth: .none)
            #expect(response.status == 201, "\(response)")
            let user = response.json["user"] as? [String: Any]
            #expect(user?["emailVerified"] as? Bool == false)
            #expect(response.json["idToken"] == nil && response.json["refreshToken"] == nil, "\(response)")
            expectError(try server.signInResponse("ann@example.com", "secret-pw"), 403, .emailNotVerified)

            let link = try server.heldLink(to: "ann@example.com", mode: "verifyEmail")
            let code = try #require(queryItem(link, "code"))
            #expect(
                try server.request("POST", "/api/auth/verify-email/confirm", json: ["code": code], auth: .none).status
                    == 200)
            let ann = try server.signIn("ann@example.com")
            #expect(try server.put("users/\(ann.uid)/notes/n1", ["text": "x"]).status == 200)
            #expect(try server.request("GET", "/api/docs/users/\(ann.uid)/notes/n1", as: ann).status == 200)
        }
    }

    @Test("an unverified user's token reaches no data endpoint and no listener, only the account endpoints")
    func tokenOfUnverifiedUser() throws {
        try withRulesKura(configure: Self.requireVerified) { server in
            _ = try server.kura.auth.createUser(email: "ann@example.com", password: "secret-pw")
            let ann = try server.signIn("ann@example.com")
            let doc = "/api/docs/users/\(ann.uid)/notes/n1"
            #expect(try server.request("PUT", doc, json: ["data": ["text": "mine"]], as: ann).status == 200)
            try server.adminUpdate(ann.uid, ["emailVerified": false])

            for _ in 0..<2 {  // the second time through the per-loop caches
                expectError(try server.request("GET", doc, as: ann), 403, .emailNotVerified)
            }
            expectError(
                try server.request("PUT", doc, json: ["data": ["text": "x"]], as: ann), 403, .emailNotVerified)
            expectError(try server.request("DELETE", doc, as: ann), 403, .emailNotVerified)
            expectError(
                try server.request("POST", "/api/query", json: ["collection": "users/\(ann.uid)/notes"], as: ann), 403,
                .emailNotVerified)
            expectError(
                try server.request(
                    "POST", "/api/commit",
                    json: ["writes": [["op": "set", "path": "users/\(ann.uid)/notes/n2", "data": ["a": 1]]]], as: ann),
                403, .emailNotVerified)
            let listen = try server.listen("?doc=users/\(ann.uid)/notes/n1", auth: ann.bearer)
            #expect(listen.status == 403)
            #expect(
                try listen.errorBody()["error"].flatMap { ($0 as? [String: Any])?["code"] as? String }
                    == "EMAIL_NOT_VERIFIED")
            expectError(try server.refresh(ann.refreshToken), 403, .emailNotVerified)

            // What the user can still do: read their account, ask for the mail again, sign out.
            let me = try server.me(ann.idToken)
            #expect(me.status == 200)
            #expect((me.json["user"] as? [String: Any])?["emailVerified"] as? Bool == false)
            #expect(try server.request("POST", "/api/auth/verify-email", json: [:], token: ann.idToken).status == 200)
            #expect(try server.request("POST", "/api/auth/signout", json: [:], token: ann.idToken).status == 200)
        }
    }

    @Test("a verification mail can be asked for again by address, with the same answer for any address")
    func resendByAddress() throws {
        try withRulesKura(configure: Self.requireVerified) { server in
            _ = try server.request(
                "POST", "/api/auth/signup", json: ["email": "ann@example.com", "password": "secret-pw"], auth: .none)
            let before = try server.outbox().count
            for address in ["ann@example.com", "nobody@example.com"] {
                let response = try server.request(
                    "POST", "/api/auth/verify-email", json: ["email": address], auth: .none)
                #expect(response.status == 200 && response.body == "{}", "\(response)")
            }
            #expect(waitUntil(timeout: 10) { server.kura.addressMails.finished == 2 })
            let mails = try server.outbox()
            #expect(mails.count == before + 1)
            #expect(mails.first?["to"] as? String == "ann@example.com")
        }
    }

    @Test("the SDK-facing rule holds without the setting too: sign-up still signs in when it is off")
    func settingOff() throws {
        try withRulesKura { server in
            let ann = try server.signUp("ann@example.com")
            #expect(try server.put("users/\(ann.uid)/notes/n1", ["text": "x"]).status == 200)
            #expect(try server.request("GET", "/api/docs/users/\(ann.uid)/notes/n1", as: ann).status == 200)
        }
    }
}
