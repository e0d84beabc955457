import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// Listeners of different callers on one query share the change feed's work when the rules let every one of them
/// list the whole collection (docs/realtime.md, "Shared views"); a rule that depends on the document keeps
/// filtering each listener on its own.
@Suite struct ListenSharingTests {
    static let rules = """
        rules_version = '1';
        match /quizzes/{id} { allow read: if true; }
        match /posts/{id} { allow read: if resource.data.public == true; }
        """

    /// The next `changes` events of `stream` until one carries data that `last` accepts, as the data each carried.
    static func changes(_ stream: SSEClient, until last: (String) -> Bool) throws -> [String] {
        var seen: [String] = []
        repeat {
            seen.append(try stream.expect("changes").data)
        } while !last(seen[seen.count - 1])
        return seen
    }

    @Test("admin, user and anonymous listeners on a public query get byte-identical events, limit window included")
    func publicQuerySharedAcrossCallers() throws {
        try withRulesKura(rules: Self.rules) { server in
            let a = try server.signUp("a@example.com")
            for (id, title) in [("q1", "b"), ("q2", "d")] { try server.put("quizzes/\(id)", ["title": title]) }
            let query = queryParameter([
                "collection": "quizzes", "orderBy": [["field": "title"]], "limit": 2,
            ])
            let streams = [
                try server.listen("?query=\(query)", auth: .admin),
                try server.listen("?query=\(query)", auth: a.bearer),
                try server.listen("?query=\(query)", auth: .none),
            ]
            var snapshots: [String] = []
            for stream in streams {
                _ = try stream.expect("connected")
                snapshots.append(try stream.expect("snapshot").data)
            }
            #expect(Set(snapshots).count == 1)
            // Enter the window at the front (pushing q2 out), move within it, leave it (q2 refills it).
            try server.put("quizzes/q3", ["title": "a"])
            try server.put("quizzes/q1", ["title": "c"])
            let deleted = try server.request("DELETE", "/api/docs/quizzes/q3")
            #expect(deleted.status == 204)
            // The feed may carry the three writes in one to three events (it sends what it read in one batch
            // together), the same events to every stream: read until q2 is back, the last write's effect.
            let seen = try streams.map { stream in try Self.changes(stream, until: { $0.contains("\"q2\"") }) }
            #expect(seen[0] == seen[1])
            #expect(seen[0] == seen[2])
        }
    }

    @Test("a rule that depends on the document still filters each user's listener, beside an admin's")
    func documentDependentRuleStillFilters() throws {
        try withRulesKura(rules: Self.rules) { server in
            let a = try server.signUp("a@example.com")
            let query = queryParameter(["collection": "posts"])
            let admin = try server.listen("?query=\(query)", auth: .admin)
            let user = try server.listen("?query=\(query)", auth: a.bearer)
            for stream in [admin, user] {
                _ = try stream.expect("connected")
                _ = try stream.expect("snapshot")
            }
            try server.put("posts/secret", ["public": false, "text": "hidden"])
            try server.put("posts/open", ["public": true, "text": "shown"])
            let adminSeen = try Self.changes(admin, until: { $0.contains("shown") }).joined()
            #expect(adminSeen.contains("hidden") && adminSeen.contains("shown"))
            let userSeen = try Self.changes(user, until: { $0.contains("shown") }).joined()
            #expect(userSeen.contains("shown"))
            #expect(!userSeen.contains("hidden"))
            #expect(try user.drain(for: 0.3).allSatisfy { !$0.data.contains("hidden") })
        }
    }

    @Test("mixed owners under a rule on resource.data: each user's streams see only their documents, alike")
    func sameUserSharesOtherUsersRefused() throws {
        let rules = """
            rules_version = '1';
            match /notes/{id} {
              allow read: if request.auth != null && resource.data.owner == request.auth.uid;
            }
            """
        try withRulesKura(rules: rules) { server in
            let a = try server.signUp("a@example.com")
            let b = try server.signUp("b@example.com")
            let a2 = try server.signIn("a@example.com")  // another token of A's: its own rules identity
            let query = queryParameter(["collection": "notes", "orderBy": [["field": "text"]]])
            // Three streams on A's first token (they share one computation), one on A's second, two on B's. All
            // start empty, so equal views: only the rules identity keeps A's and B's apart.
            let streams = [
                try server.listen("?query=\(query)", auth: a.bearer),
                try server.listen("?query=\(query)", auth: a.bearer),
                try server.listen("?query=\(query)", auth: a.bearer),
                try server.listen("?query=\(query)", auth: a2.bearer),
                try server.listen("?query=\(query)", auth: b.bearer),
                try server.listen("?query=\(query)", auth: b.bearer),
            ]
            for stream in streams {
                _ = try stream.expect("connected")
                #expect(ListenRulesTests.ids(try stream.expect("snapshot")).isEmpty)
            }
            // Writes of both owners, one document handed from A to B and one from B to A.
            try server.put("notes/a1", ["owner": a.uid, "text": "ALPHA-one"])
            try server.put("notes/b1", ["owner": b.uid, "text": "BRAVO-one"])
            try server.put("notes/a0", ["owner": a.uid, "text": "ALPHA-zero"])
            try server.put("notes/a0", ["owner": b.uid, "text": "BRAVO-handed"])
            try server.put("notes/b0", ["owner": b.uid, "text": "BRAVO-zero"])
            try server.put("notes/b0", ["owner": a.uid, "text": "ALPHA-handed"])
            try server.put("notes/a2", ["owner": a.uid, "text": "ALPHA-two"])
            try server.put("notes/b2", ["owner": b.uid, "text": "BRAVO-two"])
            // A's streams never carry B's text (BRAVO), B's never A's (ALPHA), and each ends with its owner's
            // documents. (The feed may send several writes in one event and, within one, show only their net
            // effect, so the views are compared, not every step.)
            let expected: [Set<String>] = [["a1", "b0", "a2"], ["b1", "a0", "b2"]]
            for (index, stream) in streams.enumerated() {
                let (own, last) = index < 4 ? (expected[0], "a2") : (expected[1], "b2")
                var view: Set<String> = []
                while !view.contains(last) {
                    let event = try stream.expect("changes")
                    #expect(!event.data.contains(index < 4 ? "BRAVO" : "ALPHA"), "stream \(index)")
                    for change in ListenTests.kinds(event) {
                        let parts = change.split(separator: " ").map(String.init)
                        if parts.first == "removed" { view.remove(parts[1]) } else { view.insert(parts[1]) }
                    }
                }
                #expect(view == own, "stream \(index)")
            }
            for stream in streams { #expect(try stream.drain(for: 0.3).isEmpty) }
        }
    }
}
