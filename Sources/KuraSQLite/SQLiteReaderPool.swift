import Foundation

/// Read connections for any thread. In WAL mode readers never wait for the writer (and vice versa); each
/// connection is used by one thread at a time and returned to the pool afterwards, so there are at most as many
/// as there were concurrent readers.
public final class SQLiteReaderPool: @unchecked Sendable {
    // `@unchecked`: `idle` and `closed` are read and written with `lock` held; a lent connection is used by one thread
    // at a time.
    private let path: String
    private let lock = NSLock()
    private var idle: [SQLiteConnection] = []
    private var closed = false

    private let configure: @Sendable (OpaquePointer) throws -> Void

    /// Readers of the database at `path`; `configure` runs on each new connection.
    public init(path: String, configure: @escaping @Sendable (OpaquePointer) throws -> Void = { _ in }) {
        self.path = path
        self.configure = configure
    }

    /// Runs `body` with a connection of its own.
    public func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        lock.lock()
        let reused = idle.popLast()
        lock.unlock()
        let connection = try reused ?? open()
        defer {
            lock.lock()
            if !closed && idle.count < 64 { idle.append(connection) }
            lock.unlock()
        }
        return try body(connection)
    }

    /// Runs `body` inside one read transaction, so every statement sees the same snapshot.
    public func withSnapshot<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try withConnection { connection in
            // Prepared once per connection: `execute` would parse the statement again on every query.
            try connection.run("BEGIN")
            defer { try? connection.run("COMMIT") }
            return try body(connection)
        }
    }

    private func open() throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, readOnly: true, configure: configure)
        try connection.execute("PRAGMA query_only = 1")
        return connection
    }

    /// Closes idle connections; connections in use close when returned.
    public func close() {
        lock.lock()
        closed = true
        idle.removeAll()
        lock.unlock()
    }
}
