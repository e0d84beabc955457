import Foundation
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// Reads answered on an event loop remember the caller (`LoopCallerCache`) and, where the rules allow it, the
/// decision (`LoopDecisionMemo`). Whatever is remembered must give way at once to new rules, new document data and
/// revoked tokens. Every read is repeated, so that each event loop has seen it before the change.
@Suite struct RulesRememberedTests {
    /// Enough reads that every loop (one per core) answers some of them.
    static let repeats = 8

    /// `GET /api/docs/<path>` `repeats` times as `session`; the statuses seen.
    func statuses(_ server: TestKura, _ path: String, as session: Session?) throws -> Set<Int> {
        var seen: Set<Int> = []
        for _ in 0..<Self.repeats { seen.insert(try server.request("GET", "/api/docs/" + path, as: session).status) }
        return seen
    }

    @Test("an allowed read is checked again as soon as new rules are in force")
    func newRules() throws {
        try withRulesKura { server in
            let user = try server.signUp("memo@example.com")
            try server.put("users/\(user.uid)/notes/n", ["text": "secret"])
            #expect(try statuses(server, "users/\(user.uid)/notes/n", as: user) == [200])
            let closed = """
                rules_version = '1';
                match /users/{uid}/{rest=**} {
                  allow read: if false;
                }
                """
            #expect(try server.request("POST", "/api/admin/rules", json: ["source": closed]).status == 200)
            #expect(try statuses(server, "users/\(user.uid)/notes/n", as: user) == [403])
        }
    }

    @Test("a rule that reads the document is evaluated on every read, never remembered")
    func documentDependentRule() throws {
        let rules = """
            rules_version = '1';
            match /posts/{id} {
              allow get: if request.auth != null && resource.data.public == true;
            }
            """
        try withRulesKura(rules: rules) { server in
            let user = try server.signUp("reader@example.com")
            try server.put("posts/p", ["public": true])
            #expect(try statuses(server, "posts/p", as: user) == [200])
            try server.put("posts/p", ["public": false])
            #expect(try statuses(server, "posts/p", as: user) == [403])
        }
    }

    @Test("a token whose reads were remembered is refused right after its session is signed out")
    func signedOut() throws {
        try withRulesKura { server in
            let user = try server.signUp("leaving@example.com")
            try server.put("users/\(user.uid)/notes/n", ["text": "secret"])
            #expect(try statuses(server, "users/\(user.uid)/notes/n", as: user) == [200])
            #expect(try server.request("POST", "/api/auth/signout", json: [String: Any](), as: user).status == 200)
            #expect(try statuses(server, "users/\(user.uid)/notes/n", as: user) == [401])
        }
    }

    @Test("two users' remembered reads stay their own")
    func twoUsers() throws {
        try withRulesKura { server in
            let alice = try server.signUp("alice-memo@example.com")
            let bob = try server.signUp("bob-memo@example.com")
            try server.put("users/\(alice.uid)/notes/n", ["text": "secret"])
            #expect(try statuses(server, "users/\(alice.uid)/notes/n", as: alice) == [200])
            #expect(try statuses(server, "users/\(alice.uid)/notes/n", as: bob) == [403])
        }
    }

    @Test("per-loop caches of one entry each start over on every new user and path, and answer as before")
    func smallestCaches() throws {
        let settings = ["KURA_AUTH_CALLERS_PER_LOOP": "1", "KURA_RULES_REMEMBERED_READS_PER_LOOP": "1"]
        try withRulesKura(configure: { try $0.applyEnvironment(settings) }) { server in
            let alice = try server.signUp("alice-small@example.com")
            let bob = try server.signUp("bob-small@example.com")
            for user in [alice, bob] {
                try server.put("users/\(user.uid)/notes/a", ["text": "a"])
                try server.put("users/\(user.uid)/notes/b", ["text": "b"])
            }
            for _ in 0..<3 {
                for (reader, owner) in [(alice, alice), (bob, alice), (bob, bob), (alice, bob)] {
                    for note in ["a", "b"] {
                        let want = reader.uid == owner.uid ? 200 : 403
                        #expect(try statuses(server, "users/\(owner.uid)/notes/\(note)", as: reader) == [want])
                    }
                }
            }
        }
    }
}
