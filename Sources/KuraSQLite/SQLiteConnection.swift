import CSQLite
import KuraCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An SQLite failure. Not a `APIError`: the server answers it as an opaque 500 and logs the details, except a full
/// disk (`SQLITE_FULL`), which is 507 `INSUFFICIENT_STORAGE`: SQLite rolls the statement back, so nothing is written,
/// and the database stays usable for reads and for writes once there is room again.
public struct SQLiteError: Error, CustomStringConvertible, AnswerableError {
    /// The SQLite result code.
    public var code: Int32
    /// SQLite's message plus what was being done.
    public var message: String
    public var description: String { "SQLite error \(code): \(message)" }

    /// `SQLITE_FULL`, with or without an extended code.
    public var isDiskFull: Bool { code & 0xff == SQLITE_FULL }

    /// `SQLITE_CONSTRAINT_UNIQUE`: an insert met a row with the same unique key (connections open with extended
    /// result codes on, so the constraint's kind is in the code; the C macro is an expression Swift does not import).
    public var isUniqueViolation: Bool { code == Self.constraintUnique }
    static let constraintUnique: Int32 = SQLITE_CONSTRAINT | (8 << 8)

    public var answer: APIError? {
        isDiskFull ? .insufficientStorage("the disk is full: nothing was written; reads go on (free some space)") : nil
    }

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }
}

/// A value bound to or read from a statement.
public enum SQLiteValue: Sendable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)
    case blob([UInt8])
}

/// One open `sqlite3*` connection, owned by this object and closed in `deinit`. Not thread-safe: each
/// connection is used by one thread at a time (the writer thread, or a reader checked out of the pool).
public final class SQLiteConnection {
    private let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (creating if needed) the database file at `path`; `configure` runs on the new handle
    /// (to register SQL functions, say) before the connection is used.
    public init(
        path: String, readOnly: Bool = false, configure: (OpaquePointer) throws -> Void = { _ in }
    ) throws {
        _ = Self.processConfiguration
        var db: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: "opening \(path): \(message)")
        }
        handle = db
        if !readOnly { Self.restrictMode(path) }
        if Self.keepsWALFiles.load(ordering: .relaxed) {
            var persist: Int32 = 1
            _ = sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
        }
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5000)
        try configure(db)
    }

    /// Whether connections opened from now on leave a WAL database's `-wal` and `-shm` files in place when they
    /// close (`SQLITE_FCNTL_PERSIST_WAL`; the checkpoint on close still runs). SQLite deletes them when the last
    /// connection closes, judging "last" by POSIX locks; a command that runs beside a server sets this, so that
    /// it never deletes them under the server even if the server's locks were lost (docs/architecture.md,
    /// "Database files"). Off by default: a server's clean stop removes them.
    public static let keepsWALFiles = Atomic<Bool>(false)

    /// Makes the database file at `path` and its `-wal`, `-shm` and `-journal` files readable by their owner only
    /// (they hold documents, password hashes and mails): SQLite creates a database with the umask's mode, and the
    /// files it makes beside a database later with the database file's mode. `chmod` works on the path and opens
    /// no descriptor, so it cannot disturb the POSIX locks SQLite holds on the file.
    private static func restrictMode(_ path: String) {
        for file in [path, path + "-wal", path + "-shm", path + "-journal"] {
            var info = stat()
            guard stat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o077 != 0 else { continue }
            chmod(file, info.st_mode & 0o700)
        }
    }

    /// Applies `kura_sqlite_configure_process` once, before the process's first connection. (Should some other
    /// code have used SQLite first, the call fails harmlessly and SQLite keeps its defaults.)
    private static let processConfiguration: Int32 = kura_sqlite_configure_process()

    deinit {
        statements.removeAll()  // statements must be finalized before the connection closes
        sqlite3_close_v2(handle)
    }

    public var raw: OpaquePointer { handle }

    public func error(_ rc: Int32, _ doing: String) -> SQLiteError {
        SQLiteError(code: rc, message: "\(doing): \(String(cString: sqlite3_errmsg(handle)))")
    }

    /// Runs one or more statements without results.
    public func execute(_ sql: String) throws {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc, "executing \(sql.prefix(80))") }
    }

    /// A cached prepared statement for `sql`, reset and with bindings cleared.
    public func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        if statements.count >= 256 { statements.removeAll() }
        let statement = try SQLiteStatement(connection: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// Runs `sql` with `bindings`, returning every row.
    public func rows(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        var rows: [[SQLiteValue]] = []
        while try statement.step() { rows.append(statement.row()) }
        return rows
    }

    /// Runs `sql` with `bindings` for its side effects.
    public func run(_ sql: String, _ bindings: [SQLiteValue] = []) throws {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        while try statement.step() {}
    }

    /// Rows changed by the last INSERT/UPDATE/DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// Rows changed by every INSERT/UPDATE/DELETE that completed on this connection since it opened (a statement
    /// that failed and was rolled back counts nothing).
    public var totalChanges: Int64 { sqlite3_total_changes64(handle) }
}

/// A prepared statement, finalized in `deinit`. Owned by its connection's cache.
public final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection

    init(connection: SQLiteConnection, sql: String) throws {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(connection.raw, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw connection.error(rc, "preparing \(sql.prefix(120))") }
        self.handle = statement
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    public func bind(_ values: [SQLiteValue]) throws {
        for (position, value) in values.enumerated() {
            let index = Int32(position + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .int(let integer): rc = sqlite3_bind_int64(handle, index, integer)
            case .double(let double): rc = sqlite3_bind_double(handle, index, double)
            case .text(let text): rc = sqlite3_bind_text(handle, index, text, -1, kura_sqlite_transient())
            case .blob(let bytes):
                rc = bytes.withUnsafeBytes { buffer in
                    // A zero-length blob still needs a non-NULL pointer or SQLite stores NULL.
                    sqlite3_bind_blob(
                        handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count),
                        kura_sqlite_transient())
                }
            }
            guard rc == SQLITE_OK else { throw connection.error(rc, "binding parameter \(index)") }
        }
    }

    /// Advances; `true` while a row is available.
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw connection.error(rc, "stepping")
    }

    /// The current row's columns.
    public func row() -> [SQLiteValue] {
        (0..<sqlite3_column_count(handle)).map { column(Int32($0)) }
    }

    public func column(_ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .int(sqlite3_column_int64(handle, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, index) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let blob = sqlite3_column_blob(handle, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: blob, count: count)))
        // Read as what it is: truncating to an integer would change the value (and trap past the Int64 range).
        case SQLITE_FLOAT: return .double(sqlite3_column_double(handle, index))
        default: return .null
        }
    }

    /// Virtual-machine steps run so far (a proxy for rows examined), for tests and diagnostics.
    public var vmSteps: Int { Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_VM_STEP, 0)) }
    /// Rows visited by full-table scans.
    public var fullScanSteps: Int { Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_FULLSCAN_STEP, 0)) }
}

extension SQLiteValue {
    public var int: Int64? { if case .int(let value) = self { value } else { nil } }
    public var double: Double? { if case .double(let value) = self { value } else { nil } }
    public var text: String? { if case .text(let value) = self { value } else { nil } }
    public var blob: [UInt8]? {
        switch self {
        case .blob(let value): value
        case .text(let value): Array(value.utf8)
        default: nil
        }
    }
}
