import KuraEngine
import KuraPostgres
import KuraPostgresEngine
import KuraStore
import KuraTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `PostgresClusterChannel.publishAndWait`: the sender answers once every live node applied the event, or after
/// the timeout, naming the nodes that did not confirm.
@Suite(TestPostgres.available)
struct ClusterAcknowledgementTests {
    /// A channel whose handler takes `delay` before recording what it heard: a sender that did not wait for it
    /// would return before the record.
    final class SlowNode: Sendable {
        let database: PostgresDatabase
        let channel: PostgresClusterChannel
        let heard = Shared<[ClusterEvent]>([])

        init(_ url: String, name: String, delay: Duration = .zero) throws {
            database = PostgresDatabase(url: url, poolSize: 2)
            try database.prepared()
            channel = PostgresClusterChannel(database: database, node: name, log: { _ in })
            let heard = self.heard
            channel.start { event in
                if event != .resync && event != .disconnected && delay > .zero { Self.sleep(delay) }
                heard.withLock { $0.append(event) }
            }
        }

        static func sleep(_ duration: Duration) {
            let nanoseconds =
                duration.components.seconds * 1_000_000_000
                + duration.components.attoseconds / 1_000_000_000
            var time = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
            nanosleep(&time, nil)
        }
    }

    static func aliveNodes(_ url: String) throws -> [String] {
        try TestThread {
            let rows = try PostgresConnection(url: url).query("SELECT name FROM cluster_nodes ORDER BY name")
            return (0..<rows.rowCount).compactMap { rows.string($0, 0) }
        }.join()
    }

    @Test("an event with an id survives its payload")
    func payloadWithID() throws {
        let event = ClusterEvent.revoked(uid: "u", sessionID: nil, keptSessionID: nil)
        let decoded = try #require(ClusterEvent.decodeWithID(event.payload(from: "a", id: "0f1e")))
        #expect(decoded.from == "a" && decoded.id == "0f1e" && decoded.event == event)
        #expect(ClusterEvent.decodeWithID(event.payload(from: "a"))?.id == nil)
    }

    @Test("the sender returns only once every live node applied the event")
    func waitsForEveryNode() throws {
        let url = try TestPostgres.freshDatabase()
        let a = try SlowNode(url, name: "a")
        let b = try SlowNode(url, name: "b", delay: .milliseconds(200))
        let c = try SlowNode(url, name: "c", delay: .milliseconds(50))
        defer { [a, b, c].forEach { $0.channel.stop() } }
        #expect(waitUntil(timeout: 10) { (try? Self.aliveNodes(url)) == ["a", "b", "c"] })
        #expect(waitUntil(timeout: 10) { [b, c].allSatisfy { $0.heard.current.contains(.resync) } })
        let revoked = ClusterEvent.revoked(uid: "u1", sessionID: "s1", keptSessionID: nil)
        let missing = try TestThread { try a.channel.publishAndWait(revoked, timeout: .seconds(30)) }.join()
        #expect(missing.isEmpty)
        #expect(b.heard.current.contains(revoked))
        #expect(c.heard.current.contains(revoked))
        let changed = ClusterEvent.accountChanged(uid: "u1")
        #expect(try TestThread { try b.channel.publishAndWait(changed, timeout: .seconds(30)) }.join().isEmpty)
        #expect(a.heard.current.contains(changed) && c.heard.current.contains(changed))
        #expect(!b.heard.current.contains(changed))
    }

    @Test("a node alive on paper that never answers delays the sender by the timeout, and is named")
    func vanishedNode() throws {
        let url = try TestPostgres.freshDatabase()
        let a = try SlowNode(url, name: "a")
        let b = try SlowNode(url, name: "b")
        defer { [a, b].forEach { $0.channel.stop() } }
        #expect(waitUntil(timeout: 10) { (try? Self.aliveNodes(url)) == ["a", "b"] })
        try TestThread {
            try PostgresConnection(url: url).query(
                "INSERT INTO cluster_nodes (name, seen_at) VALUES ('ghost', now() + interval '1 hour')")
        }.join()
        let revoked = ClusterEvent.revoked(uid: "u1", sessionID: nil, keptSessionID: nil)
        let started = ContinuousClock.now
        let missing = try TestThread { try a.channel.publishAndWait(revoked, timeout: .milliseconds(300)) }.join()
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(missing == ["ghost"])
        #expect(b.heard.current.contains(revoked))
        // A node seen longer ago than the liveness window is not waited for.
        try TestThread {
            try PostgresConnection(url: url).query(
                "UPDATE cluster_nodes SET seen_at = now() - interval '1 hour' WHERE name = 'ghost'")
        }.join()
        #expect(try TestThread { try a.channel.publishAndWait(revoked, timeout: .seconds(30)) }.join().isEmpty)
    }

    @Test("a stopped node removes itself and is not waited for")
    func stoppedNode() throws {
        let url = try TestPostgres.freshDatabase()
        let a = try SlowNode(url, name: "a")
        let b = try SlowNode(url, name: "b")
        defer { a.channel.stop() }
        #expect(waitUntil(timeout: 10) { (try? Self.aliveNodes(url)) == ["a", "b"] })
        b.channel.stop()
        #expect(try Self.aliveNodes(url) == ["a"])
        let event = ClusterEvent.accountChanged(uid: "u")
        #expect(try TestThread { try a.channel.publishAndWait(event, timeout: .seconds(30)) }.join().isEmpty)
    }

    @Test("a lost listening connection is announced as disconnected before the resync")
    func disconnectedBeforeResync() throws {
        let url = try TestPostgres.freshDatabase()
        let b = try SlowNode(url, name: "b")
        defer { b.channel.stop() }
        #expect(waitUntil(timeout: 10) { b.channel.connects == 1 })
        let pid = b.channel.listenerProcessID
        try TestThread {
            try PostgresConnection(url: url).query("SELECT pg_terminate_backend($1::int)", [.int(Int64(pid))])
        }.join()
        #expect(waitUntil(timeout: 10) { b.heard.current.count >= 3 })
        #expect(b.heard.current == [.resync, .disconnected, .resync])
    }
}
