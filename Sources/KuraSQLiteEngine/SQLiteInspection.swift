import Foundation
import KuraSQLite

/// What `kura doctor` reads from a data directory's SQLite files, each through a read-only connection of its own
/// (safe beside a running server; nothing is created or migrated).
public enum SQLiteInspection {
    /// A composite index's row in `documents.db`.
    public struct CompositeIndexRow: Sendable {
        /// Its definition as stored (JSON).
        public var definition: String
        /// `READY`, `CREATING` or `ERROR`.
        public var state: String
        /// Documents scanned by its build so far.
        public var scanned: Int64
        /// Why it failed, for `ERROR`.
        public var message: String?
    }

    /// `PRAGMA quick_check` (or `integrity_check` when `full`) of the database at `path`: `["ok"]` when sound, else
    /// the problems SQLite found (at most `limit`). Throws when the file does not open as a database.
    public static func check(databaseAt path: String, full: Bool = false, limit: Int = 10) throws -> [String] {
        let connection = try SQLiteConnection(path: path, readOnly: true)
        return try connection.rows("PRAGMA \(full ? "integrity_check" : "quick_check")(\(max(1, limit)))")
            .compactMap { $0.first?.text }
    }

    /// The composite indexes declared in the document database at `path` (none before the table exists).
    public static func compositeIndexes(databaseAt path: String) throws -> [CompositeIndexRow] {
        let connection = try SQLiteConnection(path: path, readOnly: true)
        guard try hasTable("composite_indexes", connection) else { return [] }
        return try connection.rows("SELECT definition, state, scanned, message FROM composite_indexes ORDER BY iid")
            .map {
                CompositeIndexRow(
                    definition: $0[0].text ?? "", state: $0[1].text ?? "", scanned: $0[2].int ?? 0,
                    message: $0[3].text)
            }
    }

    /// The time (microseconds since 1970) of the newest change-log entry of the document database at `path`.
    public static func newestChangeTime(databaseAt path: String) throws -> Int64? {
        let connection = try SQLiteConnection(path: path, readOnly: true)
        guard try hasTable("changes", connection) else { return nil }
        return try connection.rows("SELECT max(time) FROM changes").first?.first?.int
    }

    /// How many mails of the outbox at `path` are in each state (`pending`, `sent`, `failed`, `held`).
    public static func outboxCounts(databaseAt path: String) throws -> [String: Int] {
        let connection = try SQLiteConnection(path: path, readOnly: true)
        guard try hasTable("outbox", connection) else { return [:] }
        var counts: [String: Int] = [:]
        for row in try connection.rows("SELECT status, count(*) FROM outbox GROUP BY status") {
            counts[row[0].text ?? "?"] = Int(row[1].int ?? 0)
        }
        return counts
    }

    private static func hasTable(_ name: String, _ connection: SQLiteConnection) throws -> Bool {
        try !connection.rows("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(name)]).isEmpty
    }

    /// The bytes of the regular files in `directory` whose names contain `.db` (SQLite databases with their
    /// `-wal` and `-shm` files).
    public static func databaseBytes(in directory: String) -> Int64 {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return 0 }
        var total: Int64 = 0
        for name in names where name.contains(".db") {
            var info = stat()
            if stat(directory + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
                total += Int64(info.st_size)
            }
        }
        return total
    }
}
