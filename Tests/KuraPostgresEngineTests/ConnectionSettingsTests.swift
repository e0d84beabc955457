import Foundation
import KuraEngine
import KuraPostgres
import KuraStore
import KuraTestSupport
import Testing

@testable import KuraPostgresEngine

/// `store.preparedStatements` and `store.tcpTimeoutSeconds` reach every connection the engine opens, and the
/// notification listener notices a database that stopped answering.
@Suite(TestPostgres.available)
struct ConnectionSettingsTests {
    @Test("the store settings reach the pool's connections; store.url's own parameters win")
    func settingsReachTheConnections() throws {
        var configuration = StoreConfiguration()
        configuration.postgres.url = try TestPostgres.freshDatabase()
        configuration.postgres.poolSize = 2
        configuration.postgres.preparedStatements = 20
        configuration.postgres.tcpTimeoutSeconds = 12
        let engine = PostgresEngine(configuration: configuration, dataDirectory: "/tmp")
        #expect(engine.database.options.preparedStatementLimit == 20)
        try engine.database.prepared().withConnection { connection in
            #expect(connection.options.preparedStatementLimit == 20)
            #expect(connection.parameter("keepalives") == "1")
            #expect(connection.parameter("keepalives_idle") == "6")
            #expect(connection.parameter("tcp_user_timeout") == "12000")
        }
        let separator = configuration.postgres.url.contains("?") ? "&" : "?"
        configuration.postgres.url += separator + "tcp_user_timeout=4000"
        try PostgresDatabase(configuration.postgres).prepared().withConnection { connection in
            #expect(connection.parameter("tcp_user_timeout") == "4000")
            #expect(connection.parameter("keepalives_idle") == "6")
        }
        configuration.postgres.tcpTimeoutSeconds = 0
        #expect(PostgresDatabase.options(configuration.postgres).defaultParameters.isEmpty)
        #expect(PostgresDatabase.defaultOptions.defaultParameters["tcp_user_timeout"] == "30000")
        #expect(PostgresDatabase.defaultOptions.preparedStatementLimit == 256)
    }

    @Test("a listening connection whose server falls silent is noticed, announced as disconnected, and re-opened")
    func silentListenerIsNoticed() throws {
        let url = try TestPostgres.freshDatabase()
        let port = try PostgresConnection(url: url).port
        let relay = try SilentRelay(to: port)
        let relayed = url.replacing(":\(port)/", with: ":\(relay.port)/")
        try #require(relayed != url, "the test needs a postgresql://host:port/db URL")
        let database = PostgresDatabase(url: relayed, poolSize: 1)
        try database.prepared()
        let heard = Shared<[ClusterEvent]>([])
        let channel = PostgresClusterChannel(
            database: database, node: "b", heartbeat: .milliseconds(200), liveness: .seconds(2), log: { _ in })
        #expect(channel.silenceLimit == .milliseconds(1600))
        channel.start { event in heard.withLock { $0.append(event) } }
        defer {
            // The relay first: without the deadline, the listener would wait on the silent connection forever.
            relay.stop()
            channel.stop()
        }
        #expect(waitUntil(timeout: 30) { channel.connects >= 1 })
        let (before, connects) = (heard.current.count, channel.connects)
        relay.silence()
        // The relay's kernel acknowledges every heartbeat sent, so no TCP timeout fires: the deadline notices.
        #expect(waitUntil(timeout: 60) { heard.current.dropFirst(before).contains(.disconnected) })
        #expect(waitUntil(timeout: 60) { channel.connects > connects })
        #expect(waitUntil(timeout: 10) { heard.current.dropFirst(before).contains(.resync) })
    }
}
