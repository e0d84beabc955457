import Foundation
import KuraCore
import KuraModel
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// `POST /api/auth/action-code/check`: what a mailed code is for, without spending it.
@Suite struct ActionCodeCheckTests {
    @Test("check tells a reset code's operation and address twice, and the code still confirms; then it is spent")
    func checkDoesNotSpend() throws {
        try withAuthKura { kura in
            try kura.signUp("ann@example.com")
            #expect(
                try kura.request("POST", "/api/auth/password-reset", json: ["email": "ann@example.com"]).status == 200)
            let code = try #require(queryItem(try kura.heldLink(to: "ann@example.com", mode: "resetPassword"), "code"))
            for _ in 0..<2 {
                let checked = try check(kura, ["code": code])
                try #require(checked.status == 200, "\(checked)")
                #expect(checked.json["operation"] as? String == "PASSWORD_RESET")
                #expect(checked.json["email"] as? String == "ann@example.com")
                #expect(checked.json.keys.sorted() == ["email", "operation"])
            }
            let done = try kura.request(
                "POST", "/api/auth/password-reset/confirm", json: ["code": code, "newPassword": "new-secret"],
                auth: .none)
            #expect(done.status == 200, "\(done)")
            expectError(try check(kura, ["code": code]), 400, .invalidOOBCode)
        }
    }

    @Test("check of verification and email-change codes; bad input and unknown codes are INVALID_OOB_CODE")
    func operations() throws {
        try withAuthKura { kura in
            let ann = try kura.signUp("ann@example.com")
            let verify = try #require(queryItem(try kura.heldLink(to: "ann@example.com", mode: "verifyEmail"), "code"))
            let checked = try check(kura, ["code": verify])
            #expect(checked.json["operation"] as? String == "VERIFY_EMAIL")
            #expect(checked.json["email"] as? String == "ann@example.com")

            let change = try kura.request(
                "PATCH", "/api/auth/me", json: ["email": "anna@example.com"], token: ann.idToken)
            try #require(change.status == 200, "\(change)")
            let mail = try #require(try kura.outbox().first { $0["to"] as? String == "anna@example.com" })
            let link = try #require(mail["actionLink"] as? String)
            let changeCode = try #require(queryItem(link, "code"))
            let changed = try check(kura, ["code": changeCode])
            #expect(changed.json["operation"] as? String == "VERIFY_AND_CHANGE_EMAIL")
            #expect(changed.json["email"] as? String == "anna@example.com")
            #expect(changed.json["previousEmail"] as? String == "ann@example.com")

            expectError(try check(kura, ["code": "bogus"]), 400, .invalidOOBCode)
            expectError(try check(kura, [:]), 400, .invalidOOBCode)
            expectError(try check(kura, ["code": verify, "extra": 1]), 400, .invalidArgument)
        }
    }

    @Test("an expired code checks as EXPIRED_OOB_CODE")
    func expired() throws {
        try withAuthKura(configure: { $0.auth.verificationCodeLifetime = 0 }) { kura in
            try kura.signUp("ann@example.com")
            let verify = try #require(queryItem(try kura.heldLink(to: "ann@example.com", mode: "verifyEmail"), "code"))
            expectError(try check(kura, ["code": verify]), 400, .expiredOOBCode)
        }
    }

    private func check(_ kura: TestKura, _ body: [String: Any]) throws -> HTTPResponse {
        try kura.request("POST", "/api/auth/action-code/check", json: body, auth: .none)
    }
}
