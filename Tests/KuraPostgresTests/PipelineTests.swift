import Foundation
import KuraPostgres
import KuraTestSupport
import Testing

/// Pipelined statements and array parameters (`PostgresConnection+Pipeline`, `PostgresValue.intArray`…).
@Suite(TestPostgres.available)
struct PipelineTests {
    @Test("array parameters arrive as bigint[] and bytea[], NULL elements and empty arrays included")
    func arraysRoundTrip() throws {
        let connection = try PostgresConnection(url: try TestPostgres.freshDatabase())
        let rows = try connection.query(
            "SELECT a, b, n FROM unnest($1::bigint[], $2::bytea[]) WITH ORDINALITY AS u(a, b, n) ORDER BY n",
            [.intArray([1, nil, -3]), .bytesArray([[0, 255], [], nil])], resultFormat: .binary)
        #expect(rows.rowCount == 3)
        #expect(try rows.int(0, 0) == 1 && rows.bytes(0, 1) == [0, 255])
        #expect(try rows.int(1, 0) == nil && rows.bytes(1, 1) == [])
        #expect(try rows.int(2, 0) == -3 && rows.isNull(2, 1))
        let empty = try connection.query(
            "SELECT cardinality($1::bigint[]), cardinality($2::bytea[])", [.intArray([]), .bytesArray([])],
            resultFormat: .binary)
        #expect(try empty.int(0, 0) == 0 && empty.int(0, 1) == 0)
    }

    @Test("a pipeline runs its statements in order and returns each result")
    func statementsInOrder() throws {
        let connection = try PostgresConnection(url: try TestPostgres.freshDatabase())
        try connection.execute("CREATE TABLE t (id bigint PRIMARY KEY)")
        let results = try connection.pipeline([
            PipelinedStatement("BEGIN"),
            PipelinedStatement("INSERT INTO t VALUES ($1), ($2)", [1, 2], prepared: true),
            PipelinedStatement("SELECT count(*) FROM t", resultFormat: .binary),
            PipelinedStatement("COMMIT"),
        ])
        #expect(results.count == 4)
        #expect(try results[2].int(0, 0) == 2)
        #expect(!connection.isInTransaction)
        #expect(try connection.query("SELECT count(*) FROM t", resultFormat: .binary).int(0, 0) == 2)
    }

    @Test("a failing statement is thrown, the rest are skipped, and the connection stays usable")
    func failureSkipsTheRest() throws {
        let connection = try PostgresConnection(url: try TestPostgres.freshDatabase())
        try connection.execute("CREATE TABLE t (id bigint PRIMARY KEY)")
        try connection.execute("BEGIN")
        try connection.query("INSERT INTO t VALUES (1)")
        var thrown: PostgresError?
        do {
            try connection.pipeline([
                PipelinedStatement("INSERT INTO t VALUES ($1)", [1], prepared: true),
                PipelinedStatement("COMMIT"),
            ])
        } catch let error as PostgresError {
            thrown = error
        }
        #expect(thrown?.sqlState == "23505")
        // COMMIT was skipped: the transaction is still open (and aborted), and rolls back.
        #expect(connection.isInTransaction)
        try connection.execute("ROLLBACK")
        #expect(try connection.query("SELECT count(*) FROM t", resultFormat: .binary).int(0, 0) == 0)
        let again = try connection.pipeline([PipelinedStatement("SELECT 7", resultFormat: .binary)])
        #expect(try again[0].int(0, 0) == 7)
    }

    @Test("a pipeline sent behind another runs after it; an unprepared statement goes out unprepared; then it is idle")
    func pipelineBehindAnother() throws {
        let connection = try PostgresConnection(url: try TestPostgres.freshDatabase())
        try connection.execute("CREATE TABLE t (id bigint PRIMARY KEY)")
        let insert = "INSERT INTO t VALUES ($1)"
        let first = try connection.send([
            PipelinedStatement("BEGIN"), PipelinedStatement(insert, [1], prepared: true),
            PipelinedStatement("SELECT pg_sleep(0.2)"), PipelinedStatement("COMMIT"),
        ])
        // Sent while the first still runs: `insert` is prepared, the count is not (and cannot be prepared now).
        let second = try connection.send([
            PipelinedStatement("BEGIN"), PipelinedStatement(insert, [2], prepared: true),
            PipelinedStatement("SELECT count(*) FROM t", resultFormat: .binary, prepared: true),
            PipelinedStatement("COMMIT"),
        ])
        #expect(try connection.pipelineAnswerArrived() == false)
        #expect(try connection.results(of: first).count == 4)
        let results = try connection.results(of: second)
        #expect(try results[2].int(0, 0) == 2)
        #expect(!connection.isInTransaction)
        try connection.execute("SELECT 1")
        #expect(try connection.query("SELECT count(*) FROM t", resultFormat: .binary, prepared: true).int(0, 0) == 2)
    }

    @Test("behind a failed pipeline's open transaction, the next pipeline fails too, and nothing of it commits")
    func behindAFailure() throws {
        let connection = try PostgresConnection(url: try TestPostgres.freshDatabase())
        try connection.execute("CREATE TABLE t (id bigint PRIMARY KEY)")
        try connection.execute("INSERT INTO t VALUES (1)")
        let first = try connection.send([
            PipelinedStatement("BEGIN"), PipelinedStatement("INSERT INTO t VALUES ($1)", [1]),
            PipelinedStatement("COMMIT"),
        ])
        let second = try connection.send([
            PipelinedStatement("BEGIN"), PipelinedStatement("INSERT INTO t VALUES ($1)", [2]),
            PipelinedStatement("COMMIT"),
        ])
        #expect(throws: PostgresError.self) { try connection.results(of: first) }
        #expect(throws: PostgresError.self) { try connection.results(of: second) }
        #expect(connection.isInTransaction)
        try connection.execute("ROLLBACK")
        #expect(try connection.query("SELECT count(*) FROM t", resultFormat: .binary).int(0, 0) == 1)
    }
}
