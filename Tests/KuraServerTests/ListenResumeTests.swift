import Foundation
import KuraCore
import KuraModel
import KuraRealtime
import KuraSQLiteEngine
import KuraServer
import KuraServerTestSupport
import KuraStore
import KuraTestSupport
import Testing

/// Dropped connections: a client cut off at random bytes reconnects with its last event id, and what it received
/// over all its connections is exactly what the change log says, nothing lost and nothing repeated.
@Suite struct ListenResumeTests {
    /// One change as a client saw it: `kind path version`.
    typealias Seen = String

    static func seen(_ event: SSEEvent) -> [Seen] {
        (event.json["changes"] as? [[String: Any]] ?? []).map { change in
            let document = change["document"] as? [String: Any] ?? [:]
            return
                "\(change["type"] as? String ?? "?") \(document["path"] as? String ?? "?") v\(document["version"] as? Int ?? -1)"
        }
    }

    /// What the log says a listener of `matches` is told after `start`.
    static func expected(_ changes: [Change], after start: Int64, _ matches: (Document) -> Bool) -> [Seen] {
        changes.filter { $0.sequence > start }.compactMap { change in
            let was = change.before.map(matches) ?? false
            let isIn = change.after.map(matches) ?? false
            switch (was, isIn) {
            case (false, true): return "added \(change.path) v\(change.after!.version)"
            case (true, true): return "modified \(change.path) v\(change.after!.version)"
            case (true, false): return "removed \(change.path) v\(change.before!.version)"
            case (false, false): return nil
            }
        }
    }

    /// A client's copy of a target's documents, kept by applying events by their indexes.
    struct Copy {
        var documents: [[String: Any]] = []
        var problems: [String] = []

        mutating func apply(_ event: SSEEvent) {
            if event.name == "snapshot" {
                documents = event.json["documents"] as? [[String: Any]] ?? []
                return
            }
            for change in event.json["changes"] as? [[String: Any]] ?? [] {
                let document = change["document"] as? [String: Any] ?? [:]
                let old = change["oldIndex"] as? Int ?? -2
                let new = change["newIndex"] as? Int ?? -2
                if old >= 0 {
                    guard old < documents.count, documents[old]["path"] as? String == document["path"] as? String else {
                        problems.append("\(change["type"] ?? "?") \(document["path"] ?? "?") not at \(old)")
                        continue
                    }
                    documents.remove(at: old)
                }
                if new >= 0 {
                    guard new <= documents.count else {
                        problems.append("index \(new) past \(documents.count)")
                        continue
                    }
                    documents.insert(document, at: new)
                }
            }
        }

        var summary: [String] { documents.map { "\($0["path"] as? String ?? "?") v\($0["version"] as? Int ?? -1)" } }
    }

    @Test("random cuts under concurrent writes: every target resumes exactly", arguments: [11, 12] as [UInt64])
    func randomCuts(seed: UInt64) throws {
        try withTestKura(configure: { $0.realtime.heartbeatSeconds = 0.1 }) { server in
            for index in 0..<10 { try server.put("items/i\(index)", ["on": index % 2 == 0, "n": index]) }
            let done = Shared(false)
            let port = server.port
            let key = server.adminKey
            let writer = Thread {
                var random = SplitMix(seed)
                let client = try? APIClient(port: port, adminKey: key)
                for step in 0..<250 {
                    let path = "/api/docs/items/i\(random.below(14))"
                    if random.below(100) < 15 {
                        _ = try? client?.request("DELETE", path)
                    } else {
                        let data: [String: Any] = ["on": random.below(100) < 55, "n": random.below(20), "step": step]
                        _ = try? client?.request("PUT", path, json: ["data": data])
                    }
                    if random.below(3) == 0 { usleep(UInt32(random.below(3000))) }
                }
                done.withLock { $0 = true }
            }
            writer.start()

            let allQuery: [String: Any] = [
                "collection": "items", "where": [["field": "on", "op": "==", "value": true]],
            ]
            let windowQuery: [String: Any] = ["collection": "items", "orderBy": [["field": "n"]], "limit": 3]
            let url = "?target=all&query=\(queryParameter(allQuery))"
            var random = SplitMix(seed &* 31)
            var lastEventID = ""
            var saved: [String: String] = [:]  // per POST target: the position it resumes from
            var start: [String: Int64] = [:]  // the sequence of each target's (only) snapshot
            var received: [String: [Seen]] = ["all": [], "one": [], "window": []]
            var copies: [String: Copy] = ["all": Copy(), "one": Copy(), "window": Copy()]
            var connections = 0
            var cuts = 0
            var finalRound = false
            while true {
                connections += 1
                #expect(connections < 400, "too many reconnects")
                if connections >= 400 { break }
                let headers = lastEventID.isEmpty ? [] : [("Last-Event-ID", lastEventID)]
                let stream = try server.listen(url, headers: headers)
                #expect(stream.status == 200)
                guard let connected = try stream.next(timeout: 5), connected.name == "connected",
                    let id = connected.json["connectionId"] as? String
                else {
                    Issue.record("no connected event")
                    break
                }
                var add: [[String: Any]] = [["id": "one", "doc": "items/i3"], ["id": "window", "query": windowQuery]]
                for index in add.indices {
                    if let position = saved[add[index]["id"] as! String] { add[index]["resumeAfter"] = position }
                }
                #expect(try server.listenPost(id, ["add": add]).status == 200)
                finalRound = done.current
                let cutAt = finalRound ? Int.max : stream.bodyBytes + 100 + random.below(3000)
                var active: Set<String> = []
                while stream.bodyBytes < cutAt {
                    let maxRead = finalRound ? 65536 : 1 + random.below(400)
                    guard let event = try stream.next(timeout: 3, maxRead: maxRead) else { break }
                    lastEventID = event.lastEventID
                    guard let target = event.target else { continue }
                    switch event.name {
                    case "snapshot":
                        // Only a target the client never had gets a snapshot: the others resume.
                        #expect(start[target] == nil, "second snapshot for \(target): \(event)")
                        start[target] = Int64(event.lastEventID)
                        received[target] = []
                    case "changes":
                        #expect(start[target] != nil, "changes before a snapshot for \(target)")
                        received[target, default: []] += Self.seen(event)
                    default:
                        Issue.record("unexpected \(event)")
                    }
                    copies[target]?.apply(event)
                    active.insert(target)
                    if finalRound, let position = Int64(lastEventID),
                        position >= (try server.kura.store.latestSequence()),
                        active.count == 3
                    {
                        break
                    }
                }
                for target in active where target != "all" { saved[target] = lastEventID }
                stream.close()
                if finalRound { break }
                cuts += 1
            }
            writer.cancel()
            #expect(cuts > 5)

            let changes = try server.kura.store.changes(after: 0, limit: 100_000)
            let on = try QueryMatcher(
                StructuredQuery(
                    .collection(try CollectionPath("items")),
                    filters: [Filter(.field(try FieldPath("on")), .equal, true)]))
            let one = try DocumentPath("items/i3")
            #expect(received["all"] == Self.expected(changes, after: start["all"] ?? 0, on.matches))
            #expect(received["one"] == Self.expected(changes, after: start["one"] ?? 0) { $0.path == one })
            #expect((received["all"]?.count ?? 0) > 50)

            // Every copy, kept by indexes across all the reconnects, equals the store now.
            func current(_ query: [String: Any]) throws -> [String] {
                let answer = try server.request("POST", "/api/query", json: query)
                return (answer.json["documents"] as? [[String: Any]] ?? []).map {
                    "\($0["path"] as? String ?? "?") v\($0["version"] as? Int ?? -1)"
                }
            }
            #expect(copies["all"]?.summary == (try current(allQuery)))
            #expect(copies["window"]?.summary == (try current(windowQuery)))
            let i3 = try server.request("GET", "/api/docs/items/i3")
            #expect(copies["one"]?.summary == (i3.status == 200 ? ["items/i3 v\(i3.version ?? -1)"] : []))
            for (target, copy) in copies { #expect(copy.problems.isEmpty, "\(target): \(copy.problems)") }
        }
    }

    @Test("a position the change log no longer reaches, or one ahead of it, gets reset and a snapshot")
    func pruned() throws {
        try withTestKura { server in
            try server.put("items/a", ["n": 1])
            let early = try server.kura.store.latestSequence()
            try server.put("items/b", ["n": 2])
            let old = try server.kura.store.latestSequence()
            // The engine under the node's decorators (change notification, commit timing…).
            var layer: any DocumentStore = server.kura.store.base
            while let decorator = layer as? any DocumentStoreDecorator { layer = decorator.base }
            let engine = try #require(layer as? SQLiteDocumentStore)
            try engine.pruneChangeLog(olderThan: WallClock.nowMicros() + 1_000_000)
            try server.put("items/c", ["n": 3])
            try server.put("items/c", ["n": 4])
            let latest = try server.kura.store.latestSequence()
            let gone = try server.listen("?doc=items/a", headers: [("Last-Event-ID", String(early))])
            _ = try gone.expect("connected")
            let reset = try gone.expect("reset")
            #expect(reset.target == "default")
            #expect((reset.json["reason"] as? String)?.contains("no longer reaches") == true)
            let fresh = try gone.expect("snapshot")
            #expect((fresh.json["documents"] as? [[String: Any]])?.count == 1)
            #expect(fresh.lastEventID == String(latest))
            // Another database's position, far ahead of this one's log.
            let ahead = try server.listen("?doc=items/a", headers: [("Last-Event-ID", "999999")])
            _ = try ahead.expect("connected")
            #expect(try ahead.expect("reset").target == "default")
            let snapshot = try ahead.expect("snapshot")
            #expect((snapshot.json["documents"] as? [[String: Any]])?.count == 1)
            #expect(snapshot.lastEventID == String(latest))

            // Resuming within what is left of the log: only what changed since.
            try server.put("items/a", ["n": 3])
            let resumed = try server.listen("?doc=items/a", headers: [("Last-Event-ID", String(latest))])
            _ = try resumed.expect("connected")
            let replay = try resumed.expect("changes")
            #expect(Self.seen(replay) == ["modified items/a v2"])
            #expect(replay.lastEventID == String(latest + 1))
            #expect(old < latest)
        }
    }

    @Test("a mid-batch id resumes targets before it from the batch's end and the others from its start")
    func compositeIDs() throws {
        try withTestKura { server in
            let stream = try server.listen()
            let connection = try #require(try stream.expect("connected").json["connectionId"] as? String)
            let add: [[String: Any]] = [
                ["id": "a", "query": ["collection": "items"]], ["id": "b", "query": ["collection": "items"]],
            ]
            #expect(try server.listenPost(connection, ["add": add]).status == 200)
            let first = try stream.expect("snapshot")
            let second = try stream.expect("snapshot")
            #expect(Set([first.target, second.target]) == ["a", "b"])
            let base = second.lastEventID
            // One write concerns both targets: two events, the first with a mid-batch id.
            try server.put("items/x", ["n": 1])
            let forA = try stream.expect("changes")
            let forB = try stream.expect("changes")
            #expect(forA.target == "a" && forB.target == "b")
            let end = try server.kura.store.latestSequence()
            #expect(forA.lastEventID == "\(base)~\(end)~a")
            #expect(forB.lastEventID == String(end))
            stream.close()

            // Dropped after a's event: b must still get the change, a must not get it again.
            let again = try server.listen()
            let id = try #require(try again.expect("connected").json["connectionId"] as? String)
            var resumed = add
            resumed[0]["resumeAfter"] = forA.lastEventID
            resumed[1]["resumeAfter"] = forA.lastEventID
            #expect(try server.listenPost(id, ["add": resumed]).status == 200)
            var replays: [String: [Seen]] = [:]
            for _ in 0..<2 {
                let event = try again.expect("changes")
                replays[event.target ?? "?"] = Self.seen(event)
            }
            #expect(replays == ["a": [], "b": ["added items/x v1"]])
        }
    }
}

/// SplitMix64 for the writer and the cuts (a seed reproduces a run's choices, not the threads' timing).
struct SplitMix {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func below(_ n: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(n))
    }
}
