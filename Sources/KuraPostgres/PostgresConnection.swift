import CPostgres

#if canImport(Glibc)
    import Glibc
#endif

/// One libpq connection (`PGconn*`), owned by this object and closed in `deinit`. Not thread-safe: one thread
/// uses it at a time (a `PostgresConnectionPool` hands it out that way). Statements run synchronously.
public final class PostgresConnection: @unchecked Sendable {
    // `@unchecked`: one thread uses it at a time (the pool lends it so); libpq's `PGconn` allows that, not concurrent
    // use.
    private let handle: OpaquePointer
    /// The libpq connection string or URL it was opened with.
    public let url: String
    /// What the connection was opened with beyond `url`.
    public let options: PostgresConnectionOptions
    /// The statements prepared on this session, for `query(_:_:prepared: true)`: at most
    /// `options.preparedStatementLimit`, the least recently used deallocated first (`PostgresConnection+Prepared`).
    var preparedStatements = PreparedStatements()
    /// Channels this session listens on, listened to again after `reconnect()`.
    private(set) var channels: Set<String> = []
    /// The statement `sendQuery` sent, until `takeAnswer()` hands its answer out (`PostgresConnection+Notify`).
    var sentQuery: SentQuery?
    /// Pipelines `send` sent whose results `results(of:)` has not read yet (`PostgresConnection+Pipeline`).
    var pipelinesInFlight = 0

    /// Opens a connection from a libpq connection string: `postgresql://user@host:port/db`, key-value form
    /// (`host=… dbname=…`), or multi-host `postgresql://h1,h2/db?target_session_attrs=read-write`, in which case
    /// libpq tries the hosts in order and keeps the first that is up (and writable, when asked). `options` adds
    /// connection parameters around the string's and bounds the prepared statements.
    public init(url: String, options: PostgresConnectionOptions = PostgresConnectionOptions()) throws {
        precondition(options.preparedStatementLimit > 0, "a session needs room for one prepared statement")
        guard let connection = Self.connect(url, options) else {
            throw PostgresError(kind: .connection, message: "libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.errorMessage(connection)
            PQfinish(connection)
            throw PostgresError(kind: .connection, message: "connecting: \(message)")
        }
        handle = connection
        self.url = url
        self.options = options
        // libpq prints NOTICEs ("relation already exists, skipping") to stderr by default; Kura has no use for them.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    /// `PQconnectdbParams` with the defaults before the expanded connection string and the overrides after it:
    /// libpq keeps the last value given for a keyword, so the string's own settings beat the defaults.
    private static func connect(_ url: String, _ options: PostgresConnectionOptions) -> OpaquePointer? {
        let pairs =
            options.defaultParameters.sorted { $0.key < $1.key } + [(key: "dbname", value: url)]
            + options.overridingParameters.sorted { $0.key < $1.key }
        let keywords = pairs.map { strdup($0.key) } + [nil]
        let values = pairs.map { strdup($0.value) } + [nil]
        defer { for pointer in keywords + values { free(pointer) } }
        return keywords.map { UnsafePointer($0) }.withUnsafeBufferPointer { keywords in
            values.map { UnsafePointer($0) }.withUnsafeBufferPointer { values in
                PQconnectdbParams(keywords.baseAddress, values.baseAddress, 1)
            }
        }
    }

    deinit { PQfinish(handle) }

    /// True while the connection is usable; false once the server or the network dropped it.
    public var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }
    /// Whether the connection is still usable as far as the socket tells without waiting: reads what it holds, so
    /// that a server that closed the connection while it sat idle (a restart or crash of the database) shows now,
    /// before a statement is sent on it, rather than as that statement's failure.
    public func isStillConnected() -> Bool {
        // A dying server may send a notice before it closes: the first read takes the notice, the next the end.
        for _ in 0..<8 {
            guard isConnected else { return false }
            var poller = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 0) > 0 else { return true }
            guard PQconsumeInput(handle) == 1 else { return false }
        }
        return isConnected
    }
    /// True inside `BEGIN … COMMIT` (also after an error that aborted the transaction).
    public var isInTransaction: Bool { PQtransactionStatus(handle) != PQTRANS_IDLE }
    /// The host the connection went to: with a multi-host URL, the one libpq kept.
    public var host: String { PQhost(handle).map { String(cString: $0) } ?? "" }
    /// The port the connection went to.
    public var port: Int { PQport(handle).map { Int(String(cString: $0)) ?? 0 } ?? 0 }
    /// The server process serving this session (`pg_backend_pid()`), as `pg_stat_activity.pid` shows it.
    public var serverProcessID: Int32 { PQbackendPID(handle) }
    /// The socket, to wait on for notifications (see `PostgresConnection+Notify.swift`); -1 when disconnected.
    public var socket: Int32 { PQsocket(handle) }

    /// The value of libpq connection parameter `keyword` (`keepalives_idle`, `dbname`…) this connection was made
    /// with (`PQconninfo`): from the connection string, `options`, the environment or libpq's default; nil when
    /// none set it.
    public func parameter(_ keyword: String) -> String? {
        guard let options = PQconninfo(handle) else { return nil }
        defer { PQconninfoFree(options) }
        var option = options
        while let name = option.pointee.keyword {
            if String(cString: name) == keyword { return option.pointee.val.map { String(cString: $0) } }
            option += 1
        }
        return nil
    }

    /// Drops the session and opens a new one with the same settings (trying every host of a multi-host URL
    /// again), then listens again on this session's channels. Prepared statements are prepared again on use.
    public func reconnect() throws {
        PQreset(handle)
        preparedStatements.removeAll()
        sentQuery = nil
        pipelinesInFlight = 0
        guard isConnected else {
            throw PostgresError(kind: .connection, message: "reconnecting: \(Self.errorMessage(handle))")
        }
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        for channel in channels.sorted() { try execute("LISTEN \(quotedIdentifier(channel))") }
    }

    /// Runs one or more `;`-separated statements with the simple query protocol (no parameters, text results);
    /// for schema changes and transaction control.
    public func execute(_ sql: String) throws {
        finishSentQuery()
        try check(PQexec(handle, sql), doing: sql)
    }

    /// `execute`, returning the last statement's result (text format); the first statement that fails stops
    /// the rest and is thrown. Several statements in one round trip, the last of which reads something.
    public func executeReturningLast(_ sql: String) throws -> PostgresResult {
        finishSentQuery()
        return try check(PQexec(handle, sql), doing: sql)
    }

    /// Runs one statement with `$1…$n` bound to `parameters` (`PQexecParams`), and returns its rows in
    /// `resultFormat`. With `prepared`, the statement is parsed once per session (`PQprepare`) and later calls
    /// with the same SQL text only bind and execute.
    @discardableResult
    public func query(
        _ sql: String, _ parameters: [PostgresValue] = [], resultFormat: PostgresResultFormat = .text,
        prepared: Bool = false
    ) throws -> PostgresResult {
        finishSentQuery()
        let encoded = parameters.map(EncodedParameter.init)
        let name = prepared ? try preparedName(for: sql, encoded) : nil
        return try withParameterArrays(encoded) { types, values, lengths, formats in
            let result =
                if let name {
                    PQexecPrepared(handle, name, Int32(encoded.count), values, lengths, formats, resultFormat.rawValue)
                } else {
                    PQexecParams(
                        handle, sql, Int32(encoded.count), types, values, lengths, formats, resultFormat.rawValue)
                }
            return try check(result, doing: sql)
        }
    }

    /// Runs `body` in a transaction: `BEGIN`, then `COMMIT` if it returns, `ROLLBACK` if it throws. The default
    /// isolation is READ COMMITTED; at REPEATABLE READ or SERIALIZABLE callers must retry on
    /// `isSerializationFailure`.
    @discardableResult
    public func transaction<Result>(
        isolation: String = "READ COMMITTED", _ body: (PostgresConnection) throws -> Result
    ) throws -> Result {
        try execute("BEGIN ISOLATION LEVEL \(isolation)")
        let result: Result
        do {
            result = try body(self)
        } catch {
            if isConnected { try? execute("ROLLBACK") }
            throw error
        }
        try execute("COMMIT")
        return result
    }

    // MARK: - Internals shared with the extensions in this module

    /// The handle, for the files of this module that extend the connection; never handed out further.
    var raw: OpaquePointer { handle }

    func rememberChannel(_ channel: String, listening: Bool) {
        if listening { channels.insert(channel) } else { channels.remove(channel) }
    }

    /// Turns a `PGresult*` into a `PostgresResult` or a thrown `PostgresError`.
    @discardableResult
    func check(_ result: OpaquePointer?, doing sql: String) throws -> PostgresResult {
        guard let result else {
            throw PostgresError(
                kind: isConnected ? .statement : .connectionLost,
                message: "\(sql.prefix(80)): \(Self.errorMessage(handle))")
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgresResult(owning: result)
        default:
            let field = { (code: Character) -> String? in
                PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
            }
            let sqlState = field("C")
            let message = field("M") ?? Self.errorMessage(handle)
            let detail = field("D")
            PQclear(result)
            // The server sends a SQLSTATE with every error; a failure without one is libpq's own, reported when
            // it lost the server (an EPIPE while sending a statement to a crashed server comes this way while
            // PQstatus still says CONNECTION_OK). Treating it as the statement's error made callers give up for
            // good instead of reconnecting: an index build whose server restarted under it stayed ERROR.
            throw PostgresError(
                kind: isConnected && sqlState != nil ? .statement : .connectionLost, sqlState: sqlState,
                message: "\(sql.prefix(80)): \(message)", detail: detail)
        }
    }

    static func errorMessage(_ connection: OpaquePointer) -> String {
        guard let message = PQerrorMessage(connection) else { return "unknown error" }
        return String(cString: message).trimmingSuffix("\n")
    }
}

/// Lays the encoded parameters out as the four C arrays `PQexecParams` takes, valid for the duration of `body`.
func withParameterArrays<R>(
    _ parameters: [EncodedParameter],
    _ body: (
        UnsafePointer<UInt32>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?
    ) throws -> R
) rethrows -> R {
    // One buffer holds every value back to back, each followed by a NUL: libpq reads text-format values as
    // C strings and ignores their lengths. The pointer array points into the buffer.
    let storage = parameters.reduce(into: [UInt8]()) { storage, parameter in
        guard let bytes = parameter.bytes else { return }
        storage += bytes
        storage.append(0)
    }
    let types = parameters.map(\.type)
    let lengths = parameters.map { Int32($0.bytes?.count ?? 0) }
    let formats = parameters.map(\.format)
    return try storage.withUnsafeBufferPointer { buffer in
        var offset = 0
        let values: [UnsafePointer<CChar>?] = parameters.map { parameter in
            guard let bytes = parameter.bytes else { return nil }
            defer { offset += bytes.count + 1 }
            return UnsafeRawPointer(buffer.baseAddress! + offset).assumingMemoryBound(to: CChar.self)
        }
        return try types.withUnsafeBufferPointer { types in
            try values.withUnsafeBufferPointer { values in
                try lengths.withUnsafeBufferPointer { lengths in
                    try formats.withUnsafeBufferPointer { formats in
                        try body(types.baseAddress, values.baseAddress, lengths.baseAddress, formats.baseAddress)
                    }
                }
            }
        }
    }
}

/// `name` as a double-quoted SQL identifier (for LISTEN, which takes no parameters).
func quotedIdentifier(_ name: String) -> String {
    "\"" + name.replacing("\"", with: "\"\"") + "\""
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }
}
