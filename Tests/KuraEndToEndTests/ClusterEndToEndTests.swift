import Foundation
import KuraTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Three real `kura serve` processes on one PostgreSQL database, each with its own data directory: writes through
/// every node, a listener on every node, and one node killed with `kill -9` in the middle of its writes and started
/// again. Every listener must see every committed document exactly once, all in the same order (the change log's),
/// the restarted node's listener resuming from the last event id it had.
@Suite(TestPostgres.available) struct ClusterEndToEndTests {
    /// The ids a writer was told were stored.
    final class Acknowledged: Sendable {
        private let ids = Mutex<[String]>([])
        func add(_ id: String) { ids.withLock { $0.append(id) } }
        var all: [String] { ids.withLock { $0 } }
    }

    /// PUTs `items/<prefix>-<i>` for `count` documents (or until the node dies); records each 200.
    static func write(port: Int, key: String, prefix: String, count: Int, into acknowledged: Acknowledged) {
        guard let connection = try? HTTPConnection(port: port) else { return }
        let headers = [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")]
        for index in 0..<count {
            let id = "\(prefix)-\(index)"
            let body = Array(#"{"data":{"i":\#(index)}}"#.utf8)
            guard let response = try? connection.send("PUT", "/api/docs/items/\(id)", headers: headers, body: body),
                response.status == 200
            else { return }
            acknowledged.add(id)
        }
    }

    /// The ids of the documents added by a `changes` event, in order.
    static func added(_ event: SSEEvent) -> [String] {
        (event.json["changes"] as? [[String: Any]] ?? []).compactMap { change in
            guard change["type"] as? String == "added" else { return nil }
            return (change["document"] as? [String: Any])?["id"] as? String
        }
    }

    /// Reads `stream` until it has `expected` added ids, or nothing comes for 10 s, or it ends; returns the ids and
    /// the id of the last event read.
    static func collect(_ stream: SSEClient, upTo expected: Int, into ids: inout [String]) throws -> String? {
        var last: String?
        while ids.count < expected, let event = try stream.next(timeout: 10) {
            guard event.name == "changes" else { continue }
            ids += added(event)
            last = event.lastEventID
        }
        return last
    }

    static let query = #"?query=%7B%22collection%22%3A%22items%22%7D"#

    static func listen(_ node: ServerProcess, key: String, lastEventID: String? = nil) throws -> SSEClient {
        var headers = [("Authorization", "Bearer \(key)")]
        if let lastEventID { headers.append(("Last-Event-ID", lastEventID)) }
        let stream = try SSEClient(port: node.port, path: "/api/listen" + query, headers: headers)
        _ = try stream.expect("connected")
        if lastEventID == nil { _ = try stream.expect("snapshot") }
        return stream
    }

    @Test(
        "three nodes: writes through each, listeners on each, one node killed and restarted; nothing lost or repeated")
    func threeNodes() throws {
        let root = try TemporaryDirectory("cluster-e2e")
        defer { root.remove() }
        let store = ["--set", "store.engine=postgres", "--set", "store.url=\(try TestPostgres.freshDatabase())"]
        var nodes = try (0..<3).map { index in
            try ServerProcess(
                dataDirectory: root.file("node\(index)"), logFile: root.file("node\(index).log"), arguments: store)
        }
        defer { for node in nodes { node.stop() } }
        let key = try String(contentsOfFile: root.file("node0") + "/admin.key", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        for index in 1..<3 {
            let other = try String(contentsOfFile: root.file("node\(index)") + "/admin.key", encoding: .utf8)
            #expect(other.trimmingCharacters(in: .whitespacesAndNewlines) == key, "one admin key for every node")
        }
        var streams = try nodes.map { try Self.listen($0, key: key) }
        var seen: [[String]] = [[], [], []]
        let acknowledged = Acknowledged()

        // Round 1: every node writes.
        let round1 = nodes.map(\.port).enumerated().map { index, port in
            TestThread { Self.write(port: port, key: key, prefix: "r1n\(index)", count: 20, into: acknowledged) }
        }
        for thread in round1 { try thread.join() }

        // Round 2: node 2 is killed while its writer is busy; the other two keep writing.
        let victim = nodes[2]
        let round2 = nodes.map(\.port).enumerated().map { index, port in
            TestThread {
                Self.write(
                    port: port, key: key, prefix: "r2n\(index)", count: index == 2 ? 10_000 : 30, into: acknowledged)
            }
        }
        #expect(waitUntil(timeout: 30) { acknowledged.all.filter { $0.hasPrefix("r2n2-") }.count >= 10 })
        victim.kill9()
        for thread in round2 { try thread.join() }
        let lastOnVictim = try Self.collect(streams[2], upTo: Int.max, into: &seen[2])
        #expect(streams[2].ended)

        // Round 3: node 2 is back on its data directory; its listener resumes where its stream stopped.
        nodes[2] = try ServerProcess(
            dataDirectory: root.file("node2"), logFile: root.file("node2.log"), arguments: store)
        streams[2] = try Self.listen(nodes[2], key: key, lastEventID: try #require(lastOnVictim))
        let round3 = nodes.map(\.port).enumerated().map { index, port in
            TestThread { Self.write(port: port, key: key, prefix: "r3n\(index)", count: 20, into: acknowledged) }
        }
        for thread in round3 { try thread.join() }

        // The truth: what the database holds now, as a fresh listener's snapshot shows it.
        let truthStream = try SSEClient(
            port: nodes[1].port, path: "/api/listen" + Self.query, headers: [("Authorization", "Bearer \(key)")])
        _ = try truthStream.expect("connected")
        let snapshot = try truthStream.expect("snapshot")
        let stored = Set(
            (snapshot.json["documents"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
        #expect(Set(acknowledged.all).isSubset(of: stored), "an acknowledged write is missing")

        for index in 0..<3 { _ = try Self.collect(streams[index], upTo: stored.count, into: &seen[index]) }
        for index in 0..<3 {
            #expect(seen[index].count == stored.count, "node \(index): \(seen[index].count) of \(stored.count)")
            #expect(Set(seen[index]) == stored, "node \(index) saw other documents than the database holds")
            #expect(seen[index] == seen[0], "node \(index) saw the writes in another order")
        }
        // Each writer's own documents in the order it wrote them.
        for prefix in ["r1n0", "r2n1", "r3n2"] {
            let own = seen[0].filter { $0.hasPrefix(prefix + "-") }
            #expect(own == own.sorted { Int($0.split(separator: "-")[1])! < Int($1.split(separator: "-")[1])! })
        }
    }

    @Test("three nodes: a sign-out on one refuses the token on the others, rules published on one are in force on all")
    func revocationAndRules() throws {
        let root = try TemporaryDirectory("cluster-e2e-auth")
        defer { root.remove() }
        // A node re-checks a cached token every 60 s; the waits below are 10 s, so only the nodes' notifications
        // can refuse the token in time.
        let store = ["--set", "store.engine=postgres", "--set", "store.url=\(try TestPostgres.freshDatabase())"]
        let nodes = try (0..<3).map { index in
            try ServerProcess(
                dataDirectory: root.file("node\(index)"), logFile: root.file("node\(index).log"), arguments: store)
        }
        defer { for node in nodes { node.stop() } }
        let key = try String(contentsOfFile: root.file("node0") + "/admin.key", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let json = [("Content-Type", "application/json")]
        let signUp = try HTTPClient.send(
            port: nodes[0].port, "POST", "/api/auth/signup", headers: json,
            body: Array(#"{"email":"a@example.com","password":"a-long-password"}"#.utf8))
        #expect(signUp.status == 201)
        let token = try #require(signUp.json["idToken"] as? String)
        let bearer = [("Authorization", "Bearer \(token)")]
        for node in nodes {
            #expect(try HTTPClient.send(port: node.port, "GET", "/api/auth/me", headers: bearer).status == 200)
        }
        let signOut = try HTTPClient.send(
            port: nodes[1].port, "POST", "/api/auth/signout", headers: bearer + json, body: Array("{}".utf8))
        #expect(signOut.status == 200)
        for node in nodes {
            #expect(
                waitUntil(timeout: 10) {
                    (try? HTTPClient.send(port: node.port, "GET", "/api/auth/me", headers: bearer).status) == 401
                })
        }

        let rules = "rules_version = '1';\nmatch /quizzes/{id} {\n  allow read: if true;\n}\n"
        let admin = [("Authorization", "Bearer \(key)")]
        let published = try HTTPClient.send(
            port: nodes[2].port, "POST", "/api/admin/rules", headers: admin, body: Array(rules.utf8))
        #expect(published.status == 200)
        for (index, node) in nodes.enumerated() {
            #expect(
                waitUntil(timeout: 10) {
                    (try? HTTPClient.send(port: node.port, "GET", "/api/admin/rules", headers: admin).json["source"])
                        as? String == rules
                })
            let file = try String(contentsOfFile: root.file("node\(index)") + "/kura.rules", encoding: .utf8)
            #expect(file == rules, "node \(index)'s kura.rules follows the rules in force")
        }
    }
}
