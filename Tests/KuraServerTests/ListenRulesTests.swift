import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// Listeners under the security rules: data is set up with the admin key, users listen with their ID tokens.
@Suite struct ListenRulesTests {
    static func ids(_ event: SSEEvent) -> [String] {
        (event.json["documents"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    static func connect(_ server: TestKura, as session: Session?) throws -> (SSEClient, String) {
        let stream = try server.listen(auth: session.map { $0.bearer } ?? .none)
        let id = try #require(try stream.expect("connected").json["connectionId"] as? String)
        return (stream, id)
    }

    @Test("a user listening to another user's document or collection is refused; their own works")
    func crossUser() throws {
        try withRulesKura { server in
            let a = try server.signUp("a@example.com")
            let b = try server.signUp("b@example.com")
            try server.put("users/\(a.uid)/notes/n1", ["text": "mine"])
            try server.put("users/\(b.uid)/notes/n1", ["text": "b-secret"])
            let (stream, id) = try Self.connect(server, as: a)
            let add: [[String: Any]] = [
                ["id": "theirs", "doc": "users/\(b.uid)/notes/n1"],
                ["id": "theirList", "query": ["collection": "users/\(b.uid)/notes"]],
                ["id": "mine", "query": ["collection": "users/\(a.uid)/notes"]],
                ["id": "missing", "doc": "users/\(b.uid)/notes/none"],
            ]
            #expect(try server.listenPost(id, ["add": add], auth: a.bearer).status == 200)
            var errors: Set<String> = []
            var snapshots: [String: [String]] = [:]
            for _ in 0..<4 {
                let event = try #require(try stream.next(timeout: 5))
                #expect(!event.data.contains("b-secret"))
                if event.name == "error" {
                    #expect(event.json["code"] as? String == "PERMISSION_DENIED")
                    errors.insert(event.target ?? "?")
                } else {
                    #expect(event.name == "snapshot")
                    snapshots[event.target ?? "?"] = Self.ids(event)
                }
            }
            #expect(errors == ["theirs", "theirList", "missing"])
            #expect(snapshots == ["mine": ["n1"]])
            // B's writes never reach A; A's own do.
            try server.put("users/\(b.uid)/notes/n2", ["text": "b-secret"])
            try server.put("users/\(a.uid)/notes/n2", ["text": "mine too"])
            let change = try stream.expect("changes")
            #expect(change.target == "mine")
            #expect(!change.data.contains("b-secret"))
            #expect(try stream.drain(for: 0.3).isEmpty)

            // Only the stream's owner may add targets to it.
            let hijack = try server.listenPost(
                id, ["add": [["id": "x", "doc": "users/\(a.uid)/notes/n1"]]], auth: b.bearer)
            #expect(hijack.status == 403)
            #expect(try server.listenPost(id, ["remove": ["mine"]], auth: .none).status == 403)

            // The URL target is refused the same way.
            let direct = try server.listen("?doc=users/\(b.uid)/notes/n1", auth: b.bearer)
            _ = try direct.expect("connected")
            #expect(try direct.expect("snapshot").target == "default")
            let denied = try server.listen("?doc=users/\(b.uid)/notes/n1", auth: a.bearer)
            _ = try denied.expect("connected")
            let error = try denied.expect("error")
            #expect(error.json["code"] as? String == "PERMISSION_DENIED")
        }
    }

    @Test("a collection-group query delivers only the documents the user may read, in snapshots and changes")
    func perDocumentFiltering() throws {
        try withRulesKura { server in
            let a = try server.signUp("a@example.com")
            let b = try server.signUp("b@example.com")
            try server.put("users/\(a.uid)/notes/a1", ["text": "a"])
            try server.put("users/\(b.uid)/notes/b1", ["text": "b-secret"])
            let query: [String: Any] = ["collectionGroup": "notes"]
            let stream = try server.listen("?query=\(queryParameter(query))", auth: a.bearer)
            _ = try stream.expect("connected")
            #expect(Self.ids(try stream.expect("snapshot")) == ["a1"])
            try server.put("users/\(b.uid)/notes/b2", ["text": "b-secret"])
            try server.put("users/\(a.uid)/notes/a2", ["text": "a"])
            let change = try stream.expect("changes")
            #expect(!change.data.contains("b-secret"))
            #expect((change.json["changes"] as? [[String: Any]])?.count == 1)
            #expect(try stream.drain(for: 0.3).isEmpty)
        }
    }

    @Test("a document that stops being readable is removed (with what the user could see), and added back")
    func readabilityChanges() throws {
        let rules = """
            rules_version = '1';
            match /posts/{id} {
              allow read: if resource.data.public == true;
            }
            """
        try withRulesKura(rules: rules) { server in
            let a = try server.signUp("a@example.com")
            try server.put("posts/p1", ["public": true, "text": "hello"])
            try server.put("posts/p2", ["public": false, "text": "draft-secret"])
            let stream = try server.listen("?query=\(queryParameter(["collection": "posts"]))", auth: a.bearer)
            _ = try stream.expect("connected")
            #expect(Self.ids(try stream.expect("snapshot")) == ["p1"])
            try server.put("posts/p1", ["public": false, "text": "now-secret"])
            let removed = try stream.expect("changes")
            #expect(ListenTests.kinds(removed) == ["removed p1"])
            #expect(!removed.data.contains("now-secret"))
            #expect(removed.data.contains("hello"))
            try server.put("posts/p2", ["public": true, "text": "published"])
            #expect(ListenTests.kinds(try stream.expect("changes")) == ["added p2"])
            try server.put("posts/p3", ["public": false, "text": "other-secret"])
            #expect(try stream.drain(for: 0.3).isEmpty)
        }
    }
}
