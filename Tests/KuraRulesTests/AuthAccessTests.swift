import KuraCore
import KuraModel
import Synchronization
import Testing

@testable import KuraRules

/// `request.auth` in its fast forms (`.uid`, `.token`, `== null`) and with claims built on demand: the same answers
/// as the general map, and the token is built only when read.
@Suite struct AuthAccessTests {
    private static let signedOut: RuleAuth? = nil

    @Test(
        "request.auth forms answer alike signed in and signed out",
        arguments: [
            ("request.auth != null", true, false), ("request.auth == null", false, true),
            ("null != request.auth", true, false), ("null == request.auth", false, true),
            ("request.auth.uid == 'alice'", true, false), ("request.auth.uid != 'bob'", true, false),
            ("request.auth['uid'] == 'alice'", true, false), ("request.auth.token.admin == true", true, false),
            ("request.auth.token.email == 'a@x'", true, false), ("request['auth'].token.admin == true", true, false),
            ("request.auth.keys().hasAll(['uid', 'token'])", true, false),
            ("request.auth.token == {'admin': true, 'email': 'a@x'}", true, false),
            // Signed out, reading a field of null is an error, which denies, in every form.
            ("!(request.auth.uid == 'x')", true, false), ("!(request.auth.token.admin == true)", false, false),
        ])
    func forms(condition: String, signedIn: Bool, signedOut: Bool) throws {
        let alice = RuleAuth(uid: "alice", token: ["admin": true, "email": "a@x"])
        let lazyAlice = RuleAuth(uid: "alice") { ["admin": true, "email": "a@x"] }
        #expect(try decide(condition, auth: alice).isAllowed == signedIn)
        #expect(try decide(condition, auth: lazyAlice).isAllowed == signedIn)
        #expect(try decide(condition, auth: Self.signedOut).isAllowed == signedOut)
    }

    @Test("a token given as a provider is built only for rules that read it")
    func lazyToken() throws {
        let calls = Mutex(0)
        let auth = RuleAuth(uid: "alice") {
            calls.withLock { $0 += 1 }
            return ["admin": true]
        }
        #expect(try decide("request.auth != null && request.auth.uid == 'alice'", auth: auth).isAllowed)
        #expect(calls.withLock { $0 } == 0)
        #expect(
            try decide("request.auth.token.admin == true && request.auth.token.admin != false", auth: auth).isAllowed)
        #expect(calls.withLock { $0 } == 1)
        #expect(auth.token == ["admin": true])
        #expect(auth == RuleAuth(uid: "alice", token: ["admin": true]))
    }
}
