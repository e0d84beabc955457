import KuraCore

/// A PostgreSQL or libpq failure. Not a `APIError`: the server answers it as an opaque 500 (or retries it) and
/// logs the details.
public struct PostgresError: Error, CustomStringConvertible, Sendable, AnswerableError {
    /// What failed, in the wrapper's terms.
    public enum Kind: Sendable, Equatable {
        /// Opening (or re-opening) the connection failed; no server accepted it.
        case connection
        /// The server answered a statement with an error (see `sqlState`).
        case statement
        /// The connection broke while a statement was being sent or answered.
        case connectionLost
        /// No pooled connection became free within the pool's checkout timeout.
        case poolTimeout
        /// The answer was not what the caller asked for (wrong type, no such column, …).
        case protocolViolation
        /// The database's schema is newer than the migrations this build knows.
        case schemaAhead
    }

    /// What failed.
    public var kind: Kind
    /// The five-character SQLSTATE of a server error (`23505` unique violation, `40001` serialization failure,
    /// class `08` connection exceptions), nil when libpq reported no code.
    public var sqlState: String?
    /// The primary message plus what was being done.
    public var message: String
    /// The server's DETAIL field, if it sent one.
    public var detail: String?

    public init(kind: Kind, sqlState: String? = nil, message: String, detail: String? = nil) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
    }

    /// PostgreSQL's `disk_full` (53100) is answered 507 `INSUFFICIENT_STORAGE`; anything else is a 500.
    public var answer: APIError? {
        sqlState == SQLState.diskFull
            ? .insufficientStorage("the database server's disk is full: nothing was written; reads go on") : nil
    }

    public var description: String {
        var text = "PostgreSQL error"
        if let sqlState { text += " \(sqlState)" }
        text += ": \(message)"
        if let detail { text += " (\(detail))" }
        return text
    }

    /// `40001`: a serializable transaction lost a conflict; running it again may succeed.
    public var isSerializationFailure: Bool { sqlState == SQLState.serializationFailure }
    /// `40P01`: the transaction was chosen as a deadlock victim; running it again may succeed.
    public var isDeadlock: Bool { sqlState == SQLState.deadlockDetected }
    /// `42501`: the role lacks a privilege the statement needs (at start-up: it may not create tables).
    public var isInsufficientPrivilege: Bool { sqlState == SQLState.insufficientPrivilege }
    /// `23505`: a unique constraint refused the row.
    public var isUniqueViolation: Bool { sqlState == SQLState.uniqueViolation }
    /// True when the connection itself is gone (class `08`, `57P01` admin shutdown, or libpq lost the socket):
    /// reconnecting, not retrying the statement on this connection, is the remedy.
    public var isConnectionFailure: Bool {
        kind == .connection || kind == .connectionLost || sqlState?.hasPrefix(SQLState.connectionExceptionClass) == true
            || SQLState.serverGoingAway.contains(sqlState ?? "")
    }

    /// The SQLSTATEs Kura acts on (PostgreSQL's Appendix A, "Error Codes"), named once.
    public enum SQLState {
        public static let uniqueViolation = "23505"
        public static let serializationFailure = "40001"
        public static let deadlockDetected = "40P01"
        public static let insufficientPrivilege = "42501"
        public static let diskFull = "53100"
        /// Class 08, "connection exception": every code that starts with it.
        public static let connectionExceptionClass = "08"
        /// `admin_shutdown`, `crash_shutdown`, `cannot_connect_now`: the server is stopping or starting.
        public static let serverGoingAway: Set<String> = ["57P01", "57P02", "57P03"]
    }
}
