import Foundation
import KuraPostgres

/// What `kura doctor` reads from the database `store.url` names, on one connection of its own, without migrating
/// the schema or writing anything.
public struct PostgresInspection: Sendable {
    /// The schema versions the database records (empty: Kura has not created its tables yet).
    public var appliedVersions: [Int]
    /// The versions this build knows.
    public var knownVersions: [Int]
    /// The database server's clock, in microseconds since 1970.
    public var serverTime: Int64
    /// Every composite index: definition, state (`READY`, `CREATING`, `ERROR`), documents scanned, message.
    public var compositeIndexes: [(definition: String, state: String, scanned: Int64, message: String?)]
    /// Outbox mails by state.
    public var outboxCounts: [String: Int]
    /// The newest change-log entry's time (microseconds since 1970), if any.
    public var newestChangeTime: Int64?

    /// Applied versions this build does not know (the database was migrated by a newer build).
    public var unknownVersions: [Int] { appliedVersions.filter { !knownVersions.contains($0) } }
    /// Known versions not applied yet (a server of this build applies them when it starts).
    public var pendingVersions: [Int] { knownVersions.filter { !appliedVersions.contains($0) } }
}

extension PostgresDatabase {
    /// Reads the schema version, clock, indexes and outbox of the database. Throws when it cannot connect.
    public func inspect() throws -> PostgresInspection {
        let connection = try connect()
        let applied = try Self.migrator.appliedVersions(connection)
        let now = try connection.query("SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint")
        func exists(_ table: String) throws -> Bool {
            try connection.query("SELECT to_regclass($1) IS NOT NULL", [.text(table)]).bool(0, 0) == true
        }
        var indexes: [(String, String, Int64, String?)] = []
        if try exists("composite_indexes") {
            let rows = try connection.query(
                "SELECT definition, state, scanned, message FROM composite_indexes ORDER BY iid")
            for row in 0..<rows.rowCount {
                indexes.append(
                    (
                        rows.string(row, 0) ?? "", rows.string(row, 1) ?? "", try rows.int(row, 2) ?? 0,
                        rows.string(row, 3)
                    ))
            }
        }
        var outbox: [String: Int] = [:]
        if try exists("outbox") {
            let rows = try connection.query("SELECT status, count(*) FROM outbox GROUP BY status")
            for row in 0..<rows.rowCount { outbox[rows.string(row, 0) ?? "?"] = Int(try rows.int(row, 1) ?? 0) }
        }
        var newest: Int64?
        if try exists("changes") {
            newest = try connection.query("SELECT max(time) FROM changes").int(0, 0)
        }
        return PostgresInspection(
            appliedVersions: applied, knownVersions: Self.migrator.migrations.map(\.version),
            serverTime: try now.int(0, 0) ?? 0, compositeIndexes: indexes, outboxCounts: outbox,
            newestChangeTime: newest)
    }
}
