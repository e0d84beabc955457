/// Gap-free, commit-ordered numbers for a change log on PostgreSQL (docs/design/scaling.md, "Change-log order on
/// PostgreSQL").
///
/// The contract a change-log follower relies on: entries become visible in sequence order, with no gap that
/// fills in later. A PostgreSQL `SEQUENCE` does not give it: two transactions draw 5 and 6, the one holding 6
/// commits first, a follower reads 6, and 5 appears afterwards. `ChangeSequence` keeps the last number in one
/// row and the committing transaction increments it (`reserve`) as its last statement before `COMMIT`. The row
/// lock that taking numbers holds lasts until the transaction ends, so the next committer's increment waits
/// until this one's numbers are visible (PostgreSQL makes a commit visible before it releases its locks), and a
/// rolled-back transaction gives its numbers back. Followers therefore read `WHERE seq > last ORDER BY seq` and
/// every number they see is final, with no holes.
///
/// The price: commits that take numbers from the same sequence run one at a time through the span from
/// `reserve` to the end of `COMMIT` (one round trip plus the commit's WAL flush), on every node. Batch a node's
/// writes into one transaction to amortize it, and call `reserve` last.
public struct ChangeSequence: Sendable, Equatable {
    /// The table holding one row per sequence.
    public static let table = "kura_change_sequences"

    /// The migration that creates the table; put it in the engine's migration list.
    public static func migration(version: Int) -> SchemaMigration {
        SchemaMigration(
            version: version, name: "change sequences",
            sql: "CREATE TABLE \(table) (name text PRIMARY KEY, last_value bigint NOT NULL DEFAULT 0)")
    }

    /// Which counter (one per change log).
    public let name: String

    public init(name: String) {
        self.name = name
    }

    /// Creates the counter at 0 if it does not exist yet.
    public func create(_ connection: PostgresConnection) throws {
        try connection.query(
            "INSERT INTO \(Self.table) (name) VALUES ($1) ON CONFLICT (name) DO NOTHING", [.text(name)])
    }

    /// Takes the next `count` numbers inside the caller's open transaction; they become visible to others when
    /// it commits, and are given back if it rolls back. Call it as late as possible before `COMMIT`: other
    /// committers wait from here until this transaction ends. At REPEATABLE READ or SERIALIZABLE a concurrent
    /// committer makes this throw a serialization failure (`40001`); READ COMMITTED waits instead.
    public func reserve(_ count: Int = 1, in connection: PostgresConnection) throws -> ClosedRange<Int64> {
        precondition(count > 0, "reserve at least one number")
        guard connection.isInTransaction else {
            throw PostgresError(
                kind: .protocolViolation,
                message: "ChangeSequence.reserve outside a transaction would publish numbers before their entries")
        }
        let result = try connection.query(
            "UPDATE \(Self.table) SET last_value = last_value + $2 WHERE name = $1 RETURNING last_value",
            [.text(name), .int(Int64(count))], resultFormat: .binary, prepared: true)
        guard result.rowCount == 1, let last = try result.int(0, 0) else {
            throw PostgresError(kind: .protocolViolation, message: "no change sequence named \(name); create it first")
        }
        return (last - Int64(count) + 1)...last
    }

    /// `reserve`'s statement, for a caller that folds taking numbers into its own last statement before `COMMIT`
    /// (as a data-modifying CTE, `WITH r AS (…) INSERT INTO log SELECT r.last_value - $count + n, … FROM r, …`), to
    /// save the round trip: parameter `$name` binds `name` (text), `$count` the count (bigint); it returns
    /// `last_value`, the last number taken, and no row if the counter does not exist. The same rules as `reserve`
    /// apply: inside a transaction, as its last statement.
    public static func reserveSQL(name: Int, count: Int) -> String {
        "UPDATE \(table) SET last_value = last_value + $\(count) WHERE name = $\(name) RETURNING last_value"
    }

    /// The last number taken by a committed transaction: every entry up to it is visible.
    public func lastCommitted(_ connection: PostgresConnection) throws -> Int64 {
        let result = try connection.query(
            "SELECT last_value FROM \(Self.table) WHERE name = $1", [.text(name)], resultFormat: .binary)
        guard result.rowCount == 1, let last = try result.int(0, 0) else {
            throw PostgresError(kind: .protocolViolation, message: "no change sequence named \(name); create it first")
        }
        return last
    }
}
