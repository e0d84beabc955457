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
}
