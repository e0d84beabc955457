import Foundation
import KuraModel
import KuraServer
import KuraServerTestSupport
import KuraStore
import KuraTestSupport
import Testing

/// `GET /api/listen` and `POST /api/listen/{id}`: snapshots, then changes, for documents and queries.
@Suite struct ListenTests {
    /// The documents of a `snapshot` event, as `id → data`.
    static func documents(_ event: SSEEvent) -> [[String: Any]] { event.json["documents"] as? [[String: Any]] ?? [] }

    /// The changes of a `changes` event as `(type, id, oldIndex, newIndex)`.
    static func changes(_ event: SSEEvent) -> [(String, String, Int, Int)] {
        (event.json["changes"] as? [[String: Any]] ?? []).map { change in
            let document = change["document"] as? [String: Any] ?? [:]
            return (
                change["type"] as? String ?? "?", document["id"] as? String ?? "?", change["oldIndex"] as? Int ?? -2,
                change["newIndex"] as? Int ?? -2
            )
        }
    }

    static func kinds(_ event: SSEEvent) -> [String] { changes(event).map { "\($0.0) \($0.1)" } }

    /// The sequence of the latest change-log entry.
    static func latest(_ server: TestKura) throws -> String { String(try server.kura.store.latestSequence()) }

    @Test("a document: snapshot, then modified, removed and added as it changes; ids are change-log sequences")
    func documentTarget() throws {
        try withTestKura { server in
            try server.put("todos/t1", ["title": "eggs"])
            let stream = try server.listen("?doc=todos/t1&target=one")
            #expect(stream.status == 200)
            #expect(stream.head.contains("Content-Type: text/event-stream"))
            let connected = try stream.expect("connected")
            #expect((connected.json["connectionId"] as? String)?.count == 32)
            let snapshot = try stream.expect("snapshot")
            #expect(snapshot.target == "one")
            #expect(Self.documents(snapshot).map { $0["id"] as? String } == ["t1"])
            #expect(snapshot.lastEventID == (try Self.latest(server)))

            try server.put("todos/t1", ["title": "milk"])
            let modified = try stream.expect("changes")
            #expect(Self.kinds(modified) == ["modified t1"])
            #expect(modified.lastEventID == (try Self.latest(server)))
            let document = (modified.json["changes"] as? [[String: Any]])?.first?["document"] as? [String: Any]
            #expect((document?["data"] as? [String: Any])?["title"] as? String == "milk")
            #expect(document?["version"] as? Int == 2)

            #expect(try server.request("DELETE", "/api/docs/todos/t1").status == 204)
            #expect(Self.kinds(try stream.expect("changes")) == ["removed t1"])
            try server.put("todos/t1", ["title": "again"])
            #expect(Self.kinds(try stream.expect("changes")) == ["added t1"])
            // Other documents do not concern this listener.
            try server.put("todos/t2", ["title": "other"])
            #expect(try stream.drain(for: 0.3).isEmpty)
        }
    }

    @Test("a query: documents enter and leave `done == false`; indexes follow the order")
    func queryTarget() throws {
        try withTestKura { server in
            try server.put("todos/a", ["done": false, "rank": 1])
            try server.put("todos/b", ["done": true, "rank": 2])
            try server.put("todos/c", ["done": false, "rank": 3])
            let stream = try server.listen()
            let connection = try #require(try stream.expect("connected").json["connectionId"] as? String)
            let query: [String: Any] = [
                "collection": "todos", "where": [["field": "done", "op": "==", "value": false]],
                "orderBy": [["field": "rank"]],
            ]
            let added = try server.listenPost(connection, ["add": [["id": "open", "query": query]]])
            #expect(added.status == 200, "\(added)")
            #expect(added.json["added"] as? [String] == ["open"])
            let snapshot = try stream.expect("snapshot")
            #expect(Self.documents(snapshot).map { $0["id"] as? String } == ["a", "c"])

            // Marking a done: it leaves the query.
            try server.put("todos/a", ["done": true, "rank": 1])
            #expect(
                Self.changes(try stream.expect("changes")).map { "\($0.0) \($0.1) \($0.2) \($0.3)" } == [
                    "removed a 0 -1"
                ])
            // Reopening b: it enters, before c.
            try server.put("todos/b", ["done": false, "rank": 2])
            #expect(
                Self.changes(try stream.expect("changes")).map { "\($0.0) \($0.1) \($0.2) \($0.3)" } == ["added b -1 0"]
            )
            // Moving c to the front.
            try server.put("todos/c", ["done": false, "rank": 0])
            #expect(
                Self.changes(try stream.expect("changes")).map { "\($0.0) \($0.1) \($0.2) \($0.3)" } == [
                    "modified c 1 0"
                ])
            // A done to-do changing stays invisible.
            try server.put("todos/a", ["done": true, "rank": 9])
            #expect(try stream.drain(for: 0.3).isEmpty)

            // Removing the target stops its events.
            let removed = try server.listenPost(connection, ["remove": ["open"]])
            #expect(removed.json["removed"] as? [String] == ["open"])
            try server.put("todos/d", ["done": false, "rank": 5])
            #expect(try stream.drain(for: 0.3).isEmpty)
        }
    }

    @Test("a limit window: when a document leaves, the next one enters from the store")
    func limitWindow() throws {
        try withTestKura { server in
            for (id, rank) in [("a", 1), ("b", 2), ("c", 3), ("d", 4)] {
                try server.put("items/\(id)", ["rank": rank])
            }
            let query: [String: Any] = ["collection": "items", "orderBy": [["field": "rank"]], "limit": 2]
            let stream = try server.listen("?query=\(queryParameter(query))")
            _ = try stream.expect("connected")
            #expect(Self.documents(try stream.expect("snapshot")).map { $0["id"] as? String } == ["a", "b"])

            #expect(try server.request("DELETE", "/api/docs/items/a").status == 204)
            #expect(Self.kinds(try stream.expect("changes")) == ["removed a", "added c"])
            // A newcomer ahead of the window's last document pushes it out.
            try server.put("items/e", ["rank": 0])
            #expect(Self.kinds(try stream.expect("changes")) == ["removed c", "added e"])
            // b moves past c (which is outside the window): b leaves, c enters.
            try server.put("items/b", ["rank": 3.5])
            #expect(Self.kinds(try stream.expect("changes")) == ["removed b", "added c"])
            // Behind the window: nothing.
            try server.put("items/f", ["rank": 10])
            #expect(try stream.drain(for: 0.3).isEmpty)
        }
    }

    @Test("several targets on one stream; each gets its own ordered events and nothing twice")
    func manyTargets() throws {
        try withTestKura { server in
            let stream = try server.listen()
            let connection = try #require(try stream.expect("connected").json["connectionId"] as? String)
            let body: [String: Any] = [
                "add": [
                    ["id": "all", "query": ["collection": "notes"]],
                    [
                        "id": "red",
                        "query": ["collection": "notes", "where": [["field": "color", "op": "==", "value": "red"]]],
                    ],
                    ["id": "one", "doc": "notes/n1"],
                ]
            ]
            #expect(try server.listenPost(connection, body).status == 200)
            var snapshots: Set<String> = []
            for _ in 0..<3 { snapshots.insert(try stream.expect("snapshot").target ?? "?") }
            #expect(snapshots == ["all", "red", "one"])

            var expected: [String: [String]] = ["all": [], "red": [], "one": []]
            let colors = ["red", "blue"]
            for index in 0..<30 {
                let id = "n\(index % 4)"
                let color = colors[index % 3 == 0 ? 0 : 1]
                let current = try server.request("GET", "/api/docs/notes/\(id)")
                let existed = current.status == 200
                let wasRed = existed && current.data?["color"] as? String == "red"
                try server.put("notes/\(id)", ["color": color, "i": index])
                expected["all"]!.append("\(existed ? "modified" : "added") \(id)")
                if color == "red" {
                    expected["red"]!.append("\(wasRed ? "modified" : "added") \(id)")
                } else if wasRed {
                    expected["red"]!.append("removed \(id)")
                }
                if id == "n1" { expected["one"]!.append("\(existed ? "modified" : "added") n1") }
            }
            var received: [String: [String]] = ["all": [], "red": [], "one": []]
            var lastSequence = 0
            while received.values.map(\.count).reduce(0, +) < expected.values.map(\.count).reduce(0, +) {
                guard let event = try stream.next(timeout: 5) else { break }
                #expect(event.name == "changes")
                received[event.target ?? "?", default: []] += Self.kinds(event)
                // Plain ids never go backwards.
                if let sequence = Int(event.lastEventID) {
                    #expect(sequence >= lastSequence)
                    lastSequence = sequence
                }
            }
            #expect(received == expected)
            #expect(try stream.drain(for: 0.3).isEmpty)
        }
    }

    @Test("bad requests are refused before the stream opens; unknown streams are 404")
    func refusals() throws {
        try withTestKura { server in
            let badQuery = try server.listen(
                "?query=\(urlEncode("{\"collection\":\"a\",\"where\":[{\"field\":\"x\",\"op\":\"~\",\"value\":1}]}"))")
            #expect(badQuery.status == 400)
            #expect((try badQuery.errorBody()["error"] as? [String: Any])?["code"] as? String == "INVALID_QUERY")
            #expect(try server.listen("?doc=a").status == 400)
            #expect(try server.listen("?doc=a/b", headers: [("Last-Event-ID", "nonsense")]).status == 400)
            #expect(try server.listenPost("nope", ["remove": ["x"]]).status == 404)
            let stream = try server.listen()
            let connection = try #require(try stream.expect("connected").json["connectionId"] as? String)
            #expect(try server.listenPost(connection, [:]).status == 400)
            #expect(try server.listenPost(connection, ["add": [["id": "a b", "doc": "x/y"]]]).status == 400)
            #expect(
                try server.listenPost(connection, ["add": [["id": "x", "doc": "x/y", "query": ["collection": "x"]]]])
                    .status == 400)
        }
    }
}
