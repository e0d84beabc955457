import Foundation
import KuraPostgres
import KuraTestSupport
import Testing

/// What a change-log follower saw, batch by batch, checked against the contract: a number, once seen, has no
/// smaller number appear after it.
struct FollowerRecord {
    private(set) var seen: [Int64] = []
    private(set) var violations: [String] = []

    mutating func record(batch: [Int64]) {
        for number in batch {
            if let last = seen.last, number <= last {
                violations.append("\(number) appeared after \(last) had been seen")
            }
            seen.append(number)
        }
    }

    mutating func noteGap(before number: Int64) {
        violations.append("a gap before \(number)")
    }
}

@Suite(TestPostgres.available)
struct ChangeSequenceTests {
    static let log = ChangeSequence(name: "documents")

    static func database() throws -> String {
        let url = try TestPostgres.freshDatabase()
        let connection = try PostgresConnection(url: url)
        try SchemaMigrator([
            ChangeSequence.migration(version: 1),
            SchemaMigration(
                version: 2, name: "change log",
                sql: "CREATE TABLE change_log (seq bigint PRIMARY KEY, committer int NOT NULL, entry int NOT NULL)"),
        ]).migrate(connection)
        try log.create(connection)
        return url
    }

    static func read(after last: Int64, _ connection: PostgresConnection) throws -> [Int64] {
        let rows = try connection.query(
            "SELECT seq FROM change_log WHERE seq > $1 ORDER BY seq", [.int(last)], resultFormat: .binary,
            prepared: true)
        return try (0..<rows.rowCount).map { try rows.int($0, 0)! }
    }

    /// Why a plain SEQUENCE is not enough, and proof that `FollowerRecord` catches the violation.
    @Test func aPlainSequenceLetsASmallerNumberAppearLater() throws {
        let url = try TestPostgres.freshDatabase()
        let first = try PostgresConnection(url: url)
        let second = try PostgresConnection(url: url)
        let follower = try PostgresConnection(url: url)
        try first.execute("CREATE TABLE change_log (seq bigserial PRIMARY KEY, committer int, entry int)")
        var record = FollowerRecord()

        try first.execute("BEGIN")
        let early = try first.query("SELECT nextval('change_log_seq_seq')").int(0, 0)!
        try second.transaction { try $0.query("INSERT INTO change_log (committer, entry) VALUES (2, 0)") }
        record.record(batch: try Self.read(after: 0, follower))
        try first.query("INSERT INTO change_log VALUES ($1, 1, 0)", [.int(early)])
        try first.execute("COMMIT")
        record.record(batch: try Self.read(after: 0, follower))

        #expect(record.violations == ["1 appeared after 2 had been seen"])
    }

    @Test func aSecondCommitterWaitsUntilTheFirstIsVisible() throws {
        let url = try Self.database()
        let first = try PostgresConnection(url: url)
        let second = try PostgresConnection(url: url)
        let follower = try PostgresConnection(url: url)

        try first.execute("BEGIN")
        #expect(try Self.log.reserve(in: first) == 1...1)
        let secondProcess = second.serverProcessID
        let committer = TestThread {
            try second.transaction { connection in
                let numbers = try Self.log.reserve(2, in: connection)
                for number in numbers {
                    try connection.query("INSERT INTO change_log VALUES ($1, 2, 0)", [.int(number)])
                }
                return numbers
            }
        }
        let waiting = try waitUntil(timeout: 30) {
            try follower.query(
                "SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = $1", [.int(Int64(secondProcess))]
            ).bool(0, 0) == true
        }
        #expect(waiting)
        #expect(try Self.read(after: 0, follower).isEmpty)
        #expect(try Self.log.lastCommitted(follower) == 0)

        try first.query("INSERT INTO change_log VALUES (1, 1, 0)")
        try first.execute("COMMIT")
        #expect(try committer.join() == 2...3)
        #expect(try Self.read(after: 0, follower) == [1, 2, 3])
        #expect(try Self.log.lastCommitted(follower) == 3)
    }

    @Test func aRolledBackTransactionGivesItsNumbersBack() throws {
        let connection = try PostgresConnection(url: try Self.database())
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try connection.transaction { connection in
                _ = try Self.log.reserve(5, in: connection)
                throw Abort()
            }
        }
        #expect(try connection.transaction { try Self.log.reserve(in: $0) } == 1...1)
        let outside = #expect(throws: PostgresError.self) { try Self.log.reserve(in: connection) }
        #expect(outside?.kind == .protocolViolation)
        #expect(throws: PostgresError.self) {
            try connection.transaction { try ChangeSequence(name: "missing").reserve(in: $0) }
        }
    }

    /// Many committers on their own connections (as on several nodes) and a follower woken by NOTIFY: the
    /// follower sees every committed number exactly once, densely, in order.
    @Test func concurrentCommittersAndAFollowerKeepTheOrder() throws {
        let url = try Self.database()
        let committers = 6
        let transactionsEach = 30
        let finished = Shared(0)

        let follower = TestThread { () -> FollowerRecord in
            let connection = try PostgresConnection(url: url)
            try connection.listen("change_log")
            var record = FollowerRecord()
            var last: Int64 = 0
            while true {
                let done = finished.current == committers
                let batch = try Self.read(after: last, connection)
                // Dense as well as ordered: rolled-back transactions gave their numbers back.
                for (offset, number) in batch.enumerated() where number != last + 1 + Int64(offset) {
                    record.noteGap(before: number)
                }
                record.record(batch: batch)
                last = batch.last ?? last
                if done && batch.isEmpty { return record }
                _ = try connection.notifications(waitingUpTo: .milliseconds(100))
            }
        }
        let writers = (0..<committers).map { committer in
            TestThread { () -> Int64 in
                defer { finished.withLock { $0 += 1 } }
                let connection = try PostgresConnection(url: url)
                var generator = SystemRandomNumberGenerator()
                var committed: Int64 = 0
                for transaction in 0..<transactionsEach {
                    let count = Int.random(in: 1...3, using: &generator)
                    let rollBack = transaction % 7 == 3
                    try connection.execute("BEGIN")
                    let numbers = try Self.log.reserve(count, in: connection)
                    for number in numbers {
                        try connection.query(
                            "INSERT INTO change_log VALUES ($1, $2, $3)",
                            [.int(number), .int(Int64(committer)), .int(Int64(transaction))], prepared: true)
                    }
                    try connection.notify("change_log")
                    try connection.execute(rollBack ? "ROLLBACK" : "COMMIT")
                    if !rollBack { committed += Int64(count) }
                }
                return committed
            }
        }
        let total = try writers.map { try $0.join() }.reduce(0, +)
        let record = try follower.join()

        #expect(record.violations.isEmpty)
        #expect(record.seen == Array(1...total))
        let connection = try PostgresConnection(url: url)
        #expect(try Self.read(after: 0, connection) == record.seen)
        #expect(try Self.log.lastCommitted(connection) == total)
    }
}
