import CSQLite
import Foundation
internal import KuraModel

/// The offline cache's SQLite file: one connection, used under a lock (the calls are short). Owns the handle and
/// closes it in `deinit`; no raw pointers leave this file.
final class LocalDatabase: @unchecked Sendable {
    // `@unchecked`: the connection handle is used with `lock` held only.
    /// A bound or read value.
    enum Value: Sendable, Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)

        var text: String? { if case .text(let value) = self { value } else { nil } }
        var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
        var real: Double? {
            switch self {
            case .real(let value): value
            case .integer(let value): Double(value)
            default: nil
            }
        }
    }

    private let handle: OpaquePointer
    private let lock = NSLock()

    init(path: String) throws {
        var db: OpaquePointer?
        // FULLMUTEX: SQLite may have been configured process-wide for single-threaded connections (the server
        // in the same process does that); this connection is shared by many tasks.
        let rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw KuraError(.internal, "cannot open the offline cache \(path): \(message)")
        }
        handle = db
        sqlite3_busy_timeout(db, 5000)
        // WAL with synchronous=FULL: a queued write that `setData` reported as saved survives a crash or power loss.
        // (An in-memory database keeps its own journal mode.)
        if path != ":memory:" { try execute("PRAGMA journal_mode=WAL") }
        try execute("PRAGMA synchronous=FULL")
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs `body` holding the connection, inside one transaction (rolled back if `body` throws).
    func transaction<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        try run("BEGIN IMMEDIATE", [])
        do {
            let result = try body()
            try run("COMMIT", [])
            return result
        } catch {
            _ = try? run("ROLLBACK", [])
            throw error
        }
    }

    /// One statement outside a transaction.
    func execute(_ sql: String, _ values: [Value] = []) throws {
        lock.lock()
        defer { lock.unlock() }
        _ = try run(sql, values)
    }

    /// One query outside a transaction.
    func query(_ sql: String, _ values: [Value] = []) throws -> [[Value]] {
        lock.lock()
        defer { lock.unlock() }
        return try run(sql, values)
    }

    /// Inside `transaction`: a statement or query (the lock is held already).
    @discardableResult
    func run(_ sql: String, _ values: [Value]) throws -> [[Value]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw failure("preparing \(sql)")
        }
        defer { sqlite3_finalize(statement) }
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(statement, position)
            case .integer(let number): rc = sqlite3_bind_int64(statement, position, number)
            case .real(let number): rc = sqlite3_bind_double(statement, position, number)
            case .text(let text): rc = sqlite3_bind_text(statement, position, text, -1, kura_sqlite_transient())
            }
            guard rc == SQLITE_OK else { throw failure("binding") }
        }
        var rows: [[Value]] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw failure("running \(sql)") }
            var row: [Value] = []
            for column in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, column)))
                case SQLITE_NULL: row.append(.null)
                default: row.append(.text(String(cString: sqlite3_column_text(statement, column))))
                }
            }
            rows.append(row)
        }
        return rows
    }

    private func failure(_ what: String) -> KuraError {
        KuraError(.internal, "offline cache: \(what): \(String(cString: sqlite3_errmsg(handle)))")
    }
}
