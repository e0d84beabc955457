import Foundation
import KuraPostgres
import KuraTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `PostgresConnectionOptions`: the bounded prepared-statement cache, and connection parameters around the URL's.
@Suite(TestPostgres.available)
struct ConnectionOptionsTests {
    private static func serverCount(_ connection: PostgresConnection) throws -> Int64? {
        try connection.query("SELECT count(*) FROM pg_prepared_statements").int(0, 0)
    }

    @Test("a session keeps at most the limit of prepared statements, deallocating the least recently used")
    func preparedStatementsAreBounded() throws {
        let connection = try PostgresConnection(
            url: try TestPostgres.freshDatabase(), options: PostgresConnectionOptions(preparedStatementLimit: 8))
        for round in 1...40 {
            // Used every round, so never the least recently used.
            #expect(try connection.query("SELECT $1::int8 + 0", [.int(1)], prepared: true).int(0, 0) == 1)
            let result = try connection.query("SELECT $1::int8 + \(round)", [.int(1)], prepared: true)
            #expect(try result.int(0, 0) == Int64(round + 1))
            #expect(connection.preparedStatementCount <= 8)
            #expect(try Self.serverCount(connection) == Int64(connection.preparedStatementCount))
        }
        let hot = try connection.query(
            "SELECT count(*) FROM pg_prepared_statements WHERE statement = 'SELECT $1::int8 + 0'")
        #expect(try hot.int(0, 0) == 1)
        // A statement deallocated long ago is prepared again when used.
        #expect(try connection.query("SELECT $1::int8 + 1", [.int(1)], prepared: true).int(0, 0) == 2)
        #expect(try Self.serverCount(connection) == Int64(connection.preparedStatementCount))
    }

    @Test("statements deallocated inside a transaction that rolls back stay deallocated; a pipeline keeps its own")
    func deallocationInTransactionsAndPipelines() throws {
        let connection = try PostgresConnection(
            url: try TestPostgres.freshDatabase(), options: PostgresConnectionOptions(preparedStatementLimit: 2))
        try connection.query("SELECT $1::int8 + 100", [.int(1)], prepared: true)
        try connection.query("SELECT $1::int8 + 101", [.int(1)], prepared: true)
        #expect(throws: PostgresError.self) {
            try connection.transaction { connection in
                for value in 1...5 { try connection.query("SELECT $1::int8 * \(value)", [.int(1)], prepared: true) }
                try connection.query("SELECT 1 / 0")
            }
        }
        #expect(try Self.serverCount(connection) == Int64(connection.preparedStatementCount))
        // Two new statements in one pipeline with room for two: preparing the second must not drop the first.
        let results = try connection.pipeline([
            PipelinedStatement("SELECT $1::int8 + 200", [.int(1)], prepared: true),
            PipelinedStatement("SELECT $1::int8 + 201", [.int(1)], prepared: true),
        ])
        #expect(try results.map { try $0.int(0, 0) } == [201, 202])
        #expect(try Self.serverCount(connection) == 2)
    }

    @Test("parameters: the defaults yield to the URL's own, the overrides win over it, and they reach the socket")
    func parametersAroundTheURL() throws {
        let url = try TestPostgres.freshDatabase()
        let defaults = PostgresConnectionOptions.unansweredConnectionTimeout(.seconds(30))
        #expect(defaults["keepalives_idle"] == "15" && defaults["tcp_user_timeout"] == "30000")
        let connection = try PostgresConnection(
            url: url, options: PostgresConnectionOptions(defaultParameters: defaults))
        #expect(connection.parameter("keepalives") == "1")
        #expect(connection.parameter("keepalives_idle") == "15")
        #expect(connection.parameter("keepalives_interval") == "5")
        #expect(connection.parameter("keepalives_count") == "3")
        #expect(connection.parameter("tcp_user_timeout") == "30000")
        #expect(connection.parameter("connect_timeout") == "30")
        #expect(Self.socketOption(connection, SOL_SOCKET, SO_KEEPALIVE) == 1)
        #expect(Self.socketOption(connection, Int32(IPPROTO_TCP), TCP_KEEPIDLE) == 15)
        #expect(Self.socketOption(connection, Int32(IPPROTO_TCP), TCP_KEEPINTVL) == 5)
        #expect(Self.socketOption(connection, Int32(IPPROTO_TCP), TCP_KEEPCNT) == 3)
        #expect(Self.socketOption(connection, Int32(IPPROTO_TCP), TCP_USER_TIMEOUT) == 30000)
        #expect(try connection.query("SELECT 1").int(0, 0) == 1)

        let separator = url.contains("?") ? "&" : "?"
        let own = try PostgresConnection(
            url: url + separator + "keepalives_idle=7&tcp_user_timeout=9000",
            options: PostgresConnectionOptions(
                defaultParameters: defaults, overridingParameters: ["tcp_user_timeout": "3000"]))
        #expect(own.parameter("keepalives_idle") == "7")
        #expect(Self.socketOption(own, Int32(IPPROTO_TCP), TCP_KEEPIDLE) == 7)
        #expect(own.parameter("tcp_user_timeout") == "3000")
        #expect(Self.socketOption(own, Int32(IPPROTO_TCP), TCP_USER_TIMEOUT) == 3000)
        #expect(own.parameter("keepalives_count") == "3")
        // The URL's database is still the one connected to.
        #expect(own.parameter("dbname") == connection.parameter("dbname"))
        #expect(PostgresConnectionOptions.unansweredConnectionTimeout(.zero).isEmpty)
    }

    private static func socketOption(_ connection: PostgresConnection, _ level: Int32, _ name: Int32) -> Int32? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(connection.socket, level, name, &value, &length) == 0 ? value : nil
    }
}
