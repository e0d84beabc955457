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

    /// The `changes` events of `stream` for the next `count` writes, as the data each carried.
    static func changes(_ stream: SSEClient, _ count: Int) throws -> [String] {
        var seen: [String] = []
        while seen.count < count {
            let event = try stream.expect("changes")
            seen.append(event.data)
        }
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
            let seen = try streams.map { try Self.changes($0, 3) }
            #expect(seen[0] == seen[1])
            #expect(seen[0] == seen[2])
            #expect(seen[0].joined().contains("\"q2\""))
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
            let adminSeen = try Self.changes(admin, 2).joined()
            #expect(adminSeen.contains("hidden") && adminSeen.contains("shown"))
            let userSeen = try Self.changes(user, 1).joined()
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
            // A's streams never carry B's text (BRAVO), B's never A's (ALPHA); a document handed over leaves with
            // the version its old owner saw.
            let expected = [
                ["added a1", "added a0", "removed a0", "added b0", "added a2"],
                ["added b1", "added a0", "added b0", "removed b0"],
            ]
            for (index, stream) in streams.enumerated() {
                let own = expected[index < 4 ? 0 : 1]
                var changes: [String] = []
                while changes.count < own.count {
                    let event = try stream.expect("changes")
                    changes += ListenTests.kinds(event)
                    #expect(!event.data.contains(index < 4 ? "BRAVO" : "ALPHA"))
                }
                #expect(changes == own, "stream \(index)")
            }
            for stream in streams { #expect(try stream.drain(for: 0.3).isEmpty) }
        }
    }
}
