import Foundation
import KuraCore

/// A bounded set of connections to one database, shared by many threads. `withConnection` lends a connection to
/// one thread at a time; connections open lazily up to `maximumConnections`, and a caller waits (up to
/// `checkoutTimeout`) when all are lent. A connection that broke is re-opened (`reconnect()`) before it is lent
/// again, so after a failover the pool follows the multi-host URL to the new primary; so is one whose server
/// closed it while it sat idle (a database restart), so that no request after the restart finds it dead.
public final class PostgresConnectionPool: @unchecked Sendable {
    // `@unchecked`: the mutable fields are read and written with `condition`'s mutex held; a lent connection is used by
    // one thread at a time.
    /// The libpq connection string every connection is opened with.
    public let url: String
    /// The most connections open at once (PostgreSQL's `max_connections` is shared by every node).
    public let maximumConnections: Int
    /// How long `withConnection` waits for a free connection before throwing `.poolTimeout`.
    public let checkoutTimeout: Duration
    /// What every connection is opened with beyond `url` (connection parameters, the prepared-statement bound).
    public let options: PostgresConnectionOptions

    /// Timed waits on the monotonic clock, so a wall-clock step does not stretch a checkout's timeout.
    private let condition = MonotonicCondition()
    private var idle: [PostgresConnection] = []
    private var openCount = 0

    public init(
        url: String, maximumConnections: Int = 10, checkoutTimeout: Duration = .seconds(5),
        options: PostgresConnectionOptions = PostgresConnectionOptions()
    ) {
        precondition(maximumConnections > 0, "a pool needs at least one connection")
        self.url = url
        self.maximumConnections = maximumConnections
        self.checkoutTimeout = checkoutTimeout
        self.options = options
    }

    /// Connections open now (lent or idle).
    public var openConnections: Int {
        condition.lock()
        defer { condition.unlock() }
        return openCount
    }

    /// Runs `body` with a connection of its own. The connection goes back to the pool afterwards; if `body` left a
    /// transaction open (it threw mid-way), the pool rolls it back first; if the connection broke, the next
    /// borrower gets it re-opened.
    @discardableResult
    public func withConnection<Result>(_ body: (PostgresConnection) throws -> Result) throws -> Result {
        let connection = try checkOut()
        defer { checkIn(connection) }
        if !connection.isStillConnected() { try connection.reconnect() }
        return try body(connection)
    }

    /// Lends a connection until `giveBack`, for a borrower whose use does not fit one closure (the document
    /// writer keeps one batch's COMMIT in flight on a connection while it runs the next batch on another). It is
    /// re-opened first if it broke; `giveBack` rolls back a transaction left open.
    public func borrow() throws -> PostgresConnection {
        let connection = try checkOut()
        if !connection.isStillConnected() {
            do { try connection.reconnect() } catch {
                checkIn(connection)
                throw error
            }
        }
        return connection
    }

    /// `borrow` if a connection is idle or may be opened now; nil (without waiting) when all are lent.
    public func borrowIfAvailable() throws -> PostgresConnection? {
        condition.lock()
        let available = !idle.isEmpty || openCount < maximumConnections
        condition.unlock()
        // Another borrower may take it meanwhile; `borrow` then waits for the next one, as any borrower would.
        return available ? try borrow() : nil
    }

    /// Returns a connection `borrow` lent.
    public func giveBack(_ connection: PostgresConnection) { checkIn(connection) }

    /// Closes the idle connections (lent ones stay open and return to the pool as usual); the pool opens new
    /// ones on demand. For shutdown, and for tests.
    public func closeIdleConnections() {
        condition.lock()
        openCount -= idle.count
        idle.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    private func checkOut() throws -> PostgresConnection {
        let timeout = checkoutTimeout.components
        let deadline =
            MonotonicClock.nanoseconds()
            &+ UInt64(max(0, timeout.seconds)) * 1_000_000_000 &+ UInt64(max(0, timeout.attoseconds) / 1_000_000_000)
        condition.lock()
        while true {
            if let connection = idle.popLast() {
                condition.unlock()
                return connection
            }
            if openCount < maximumConnections {
                openCount += 1
                condition.unlock()
                do {
                    return try PostgresConnection(url: url, options: options)
                } catch {
                    condition.lock()
                    openCount -= 1
                    condition.signal()
                    condition.unlock()
                    throw error
                }
            }
            if !condition.wait(untilNanoseconds: deadline) {
                condition.unlock()
                throw PostgresError(
                    kind: .poolTimeout,
                    message: "all \(maximumConnections) connections stayed busy for \(checkoutTimeout)")
            }
        }
    }

    private func checkIn(_ connection: PostgresConnection) {
        if connection.isConnected && connection.isInTransaction { try? connection.execute("ROLLBACK") }
        condition.lock()
        // A broken connection stays in the pool; `withConnection` re-opens it on its next use.
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }
}

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
