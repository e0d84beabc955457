import Foundation
import KuraPostgres
import KuraTestSupport
import Testing

@Suite(TestPostgres.available)
struct ConnectionTests {
    @Test(arguments: [PostgresResultFormat.text, .binary])
    func parametersAndResultsRoundTrip(format: PostgresResultFormat) throws {
        let connection = try PostgresConnection(url: try TestPostgres.freshDatabase())
        let bytes: [UInt8] = [0, 1, 2, 255, 0]
        let result = try connection.query(
            "SELECT $1::text, $2::bigint, $3::int4, $4::float8, $5::bool, $6::bytea, $7::text, $8::text, ''::text",
            [
                .text("héllo 'x'"), .int(-9_000_000_000), .int(42), .double(2.5), .bool(true), .bytes(bytes), .null,
                .text(""),
            ],
            resultFormat: format)
        #expect(result.rowCount == 1 && result.columnCount == 9)
        #expect(result.string(0, 0) == "héllo 'x'")
        #expect(try result.int(0, 1) == -9_000_000_000)
        #expect(try result.int(0, 2) == 42)
        #expect(try result.double(0, 3) == 2.5)
        #expect(try result.bool(0, 4) == true)
        #expect(result.isNull(0, 6) && result.string(0, 6) == nil)
        #expect(try result.int(0, 6) == nil)
        #expect(result.string(0, 7) == "")
        #expect(result.string(0, 8) == "")
        if format == .binary {
            #expect(result.bytes(0, 5) == bytes)
        } else {
            #expect(result.string(0, 5) == "\\x000102ff00")
        }
    }

    @Test func errorsCarryTheirSQLState() throws {
        let connection = try PostgresConnection(url: try TestPostgres.freshDatabase())
        try connection.execute("CREATE TABLE t (id int PRIMARY KEY)")
        try connection.query("INSERT INTO t VALUES ($1)", [1])
        let cases: [(String, String)] = [
            ("INSERT INTO t VALUES (1)", "23505"), ("SELEC 1", "42601"), ("SELECT 1 / 0", "22012"),
            ("SELECT * FROM missing", "42P01"),
        ]
        for (sql, state) in cases {
            let error = #expect(throws: PostgresError.self) { try connection.query(sql) }
            #expect(error?.sqlState == state, "\(sql)")
            #expect(error?.kind == .statement)
        }
        // The session is still usable after errors.
        #expect(try connection.query("SELECT count(*) FROM t").int(0, 0) == 1)
    }

    @Test func transactionCommitsOrRollsBack() throws {
        let connection = try PostgresConnection(url: try TestPostgres.freshDatabase())
        try connection.execute("CREATE TABLE t (id int PRIMARY KEY)")
        try connection.transaction { try $0.query("INSERT INTO t VALUES (1)") }
        #expect(throws: PostgresError.self) {
            try connection.transaction { connection in
                try connection.query("INSERT INTO t VALUES (2)")
                try connection.query("INSERT INTO t VALUES (1)")  // unique violation aborts the whole transaction
            }
        }
        #expect(!connection.isInTransaction)
        #expect(try connection.query("SELECT array_agg(id)::text FROM t").string(0, 0) == "{1}")
    }

    @Test func preparedStatementsAreParsedOncePerSession() throws {
        let connection = try PostgresConnection(url: try TestPostgres.freshDatabase())
        for value in 1...3 {
            let result = try connection.query("SELECT $1::int8 * 2", [.int(Int64(value))], prepared: true)
            #expect(try result.int(0, 0) == Int64(value) * 2)
        }
        try connection.query("SELECT $1::text", ["x"], prepared: true)
        #expect(try connection.query("SELECT count(*) FROM pg_prepared_statements").int(0, 0) == 2)
        // The same SQL with a parameter of another type gets a statement of its own, not a type error.
        #expect(try connection.query("SELECT $1::text", [.int(7)], prepared: true).string(0, 0) == "7")
        #expect(try connection.query("SELECT $1::text", [.null], prepared: true).string(0, 0) == nil)
        #expect(try connection.query("SELECT count(*) FROM pg_prepared_statements").int(0, 0) == 3)
    }

    @Test func reconnectsAfterTheServerEndsTheSession() throws {
        let url = try TestPostgres.freshDatabase()
        let connection = try PostgresConnection(url: url)
        try connection.query("SELECT $1::int", [1], prepared: true)
        try connection.listen("wake")
        let oldProcess = connection.serverProcessID
        try PostgresConnection(url: url).query("SELECT pg_terminate_backend($1::int)", [.int(Int64(oldProcess))])
        let error = #expect(throws: PostgresError.self) { try connection.query("SELECT 1") }
        #expect(error?.isConnectionFailure == true)
        #expect(!connection.isConnected)

        try connection.reconnect()
        #expect(connection.serverProcessID != oldProcess)
        #expect(try connection.query("SELECT $1::int", [2], prepared: true).int(0, 0) == 2)
        // Still listening on the new session.
        try PostgresConnection(url: url).notify("wake", payload: "after")
        #expect(try connection.notifications(waitingUpTo: .seconds(10)).map(\.payload) == ["after"])
    }

    @Test func multiHostURLSkipsAHostThatIsDown() throws {
        let url = try TestPostgres.freshDatabase()
        let live = TestPostgres.hostAndPort(of: url)
        let downPort = try unusedPort()
        let multiHost = url.replacingOccurrences(of: live, with: "127.0.0.1:\(downPort),\(live)")
        let separator = multiHost.contains("?") ? "&" : "?"
        let connection = try PostgresConnection(
            url: multiHost + separator + "target_session_attrs=read-write&connect_timeout=5")
        #expect(connection.port == Int(live.split(separator: ":").last!))
        #expect(try connection.query("SELECT 1").int(0, 0) == 1)

        // Nothing up at all: a connection error naming the failure, not a crash.
        let error = #expect(throws: PostgresError.self) {
            try PostgresConnection(url: "postgresql://127.0.0.1:\(downPort)/x?connect_timeout=5")
        }
        #expect(error?.kind == .connection && error?.isConnectionFailure == true)
    }
}

/// A loopback port nobody listens on (bound, then released).
func unusedPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
        }
    }
    guard bound else { throw TestFailure("could not bind a loopback port") }
    return Int(UInt16(bigEndian: address.sin_port))
}
