import KuraEngine
import KuraPostgres
import KuraPostgresEngine
import KuraStore
import KuraTestSupport
import Testing

/// The PostgreSQL cluster channel (LISTEN/NOTIFY between nodes) and the state nodes share (rules, admin key).
@Suite(TestPostgres.available)
struct ClusterChannelTests {
    /// A channel on `url` whose handler records what it hears.
    final class Node: Sendable {
        let database: PostgresDatabase
        let channel: PostgresClusterChannel
        let heard = Shared<[ClusterEvent]>([])

        init(_ url: String, name: String) throws {
            database = PostgresDatabase(url: url, poolSize: 2)
            try database.prepared()
            channel = PostgresClusterChannel(database: database, node: name, log: { _ in })
            let heard = self.heard
            channel.start { event in heard.withLock { $0.append(event) } }
        }

        func count(of event: ClusterEvent) -> Int { heard.current.filter { $0 == event }.count }
    }

    @Test(
        "every event survives its payload",
        arguments: [
            ClusterEvent.accountChanged(uid: "u1"), .revoked(uid: "u 2", sessionID: "s", keptSessionID: nil),
            .revoked(uid: "ü", sessionID: nil, keptSessionID: "k"), .signingKeysRotated,
            .rulesPublished(version: 7), .documentsChanged(through: 9), .resync,
        ])
    func payloadRoundTrip(event: ClusterEvent) throws {
        let decoded = try #require(ClusterEvent.decode(event.payload(from: "node-a")))
        #expect(decoded.from == "node-a")
        #expect(decoded.event == event)
        #expect(ClusterEvent(payload: "{\"from\":\"x\",\"event\":\"from-a-newer-build\"}") == nil)
    }

    @Test("a node hears what another publishes, not what it publishes itself")
    func publishReachesOthers() throws {
        let url = try TestPostgres.freshDatabase()
        let a = try Node(url, name: "a")
        let b = try Node(url, name: "b")
        defer {
            a.channel.stop()
            b.channel.stop()
        }
        // Each hears `resync` once it listens.
        #expect(waitUntil(timeout: 10) { a.count(of: .resync) == 1 && b.count(of: .resync) == 1 })
        let revoked = ClusterEvent.revoked(uid: "u1", sessionID: "s1", keptSessionID: nil)
        try TestThread { try a.channel.publish(revoked) }.join()
        try TestThread { try b.channel.publish(.rulesPublished(version: 3)) }.join()
        #expect(waitUntil(timeout: 10) { b.count(of: revoked) == 1 && a.count(of: .rulesPublished(version: 3)) == 1 })
        // A third event after both, so that "not heard" is not just "not heard yet".
        try TestThread { try b.channel.publish(.signingKeysRotated) }.join()
        #expect(waitUntil(timeout: 10) { a.count(of: .signingKeysRotated) == 1 })
        #expect(a.count(of: revoked) == 0)
        #expect(b.count(of: .rulesPublished(version: 3)) == 0)
        #expect(b.count(of: .signingKeysRotated) == 0)
    }

    @Test("the document store's commit notification wakes every node, a burst as one event")
    func commitNotifications() throws {
        let url = try TestPostgres.freshDatabase()
        let b = try Node(url, name: "b")
        defer { b.channel.stop() }
        #expect(waitUntil(timeout: 10) { b.count(of: .resync) == 1 })
        try TestThread {
            let connection = try PostgresConnection(url: url)
            try connection.transaction { connection in
                for sequence in 40...42 {
                    try connection.notify(PostgresClusterChannel.changesChannel, payload: String(sequence))
                }
            }
        }.join()
        #expect(waitUntil(timeout: 10) { b.count(of: .documentsChanged(through: 42)) == 1 })
        #expect(b.heard.current.filter { if case .documentsChanged = $0 { true } else { false } }.count == 1)
    }

    @Test("a lost listening connection is re-opened, announced by resync, and hears again")
    func reconnects() throws {
        let url = try TestPostgres.freshDatabase()
        let a = try Node(url, name: "a")
        let b = try Node(url, name: "b")
        defer {
            a.channel.stop()
            b.channel.stop()
        }
        #expect(waitUntil(timeout: 10) { b.channel.connects == 1 && a.channel.connects == 1 })
        let pid = b.channel.listenerProcessID
        try TestThread {
            try PostgresConnection(url: url).query("SELECT pg_terminate_backend($1::int)", [.int(Int64(pid))])
        }.join()
        #expect(waitUntil(timeout: 10) { b.count(of: .resync) == 2 })
        #expect(b.channel.connects == 2)
        #expect(b.channel.listenerProcessID != pid)
        try TestThread { try a.channel.publish(.accountChanged(uid: "u9")) }.join()
        #expect(waitUntil(timeout: 10) { b.count(of: .accountChanged(uid: "u9")) == 1 })
    }

    @Test("publishing the same rules from several nodes at once makes one version; new text a new one")
    func rulesPublishedOnce() throws {
        let url = try TestPostgres.freshDatabase()
        let nodes = try (0..<4).map { index in
            let database = PostgresDatabase(url: url, poolSize: 1)
            try database.prepared()
            return PostgresSharedState(database: database, node: "n\(index)")
        }
        #expect(try nodes[0].latestRules() == nil)
        #expect(try nodes[0].latestRulesVersion() == 0)
        let source = "rules_version = '2';\n"
        let results = try nodes.map { node in TestThread { try node.publishRules(source) } }.map { try $0.join() }
        #expect(results.filter(\.published).count == 1)
        #expect(Set(results.map(\.rules.version)) == [1])
        #expect(try nodes[1].latestRules() == SharedRules(version: 1, source: source))
        let second = try nodes[2].publishRules(source + "// changed\n")
        #expect(second.published && second.rules.version == 2)
        #expect(try nodes[3].latestRulesVersion() == 2)
        #expect(try nodes[3].rules(version: 1)?.source == source)
    }

    @Test("the first node's admin key is every node's")
    func adminKeyShared() throws {
        let url = try TestPostgres.freshDatabase()
        let database = PostgresDatabase(url: url, poolSize: 1)
        try database.prepared()
        let a = PostgresSharedState(database: database, node: "a")
        let b = PostgresSharedState(database: database, node: "b")
        #expect(try a.adminKey(proposing: "key-of-a") == "key-of-a")
        #expect(try b.adminKey(proposing: "key-of-b") == "key-of-a")
    }
}
