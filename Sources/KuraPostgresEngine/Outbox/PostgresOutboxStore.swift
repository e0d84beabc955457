import KuraCore
import KuraMail
import KuraModel
import KuraPostgres
import Synchronization

/// The PostgreSQL engine's `OutboxStore`: the `outbox` table (Outbox/PostgresOutboxSchema.swift), one queue for
/// every node's delivery worker. Every method is one autocommitted statement, durable when it returns.
///
/// `claimNext` picks the pending mail due soonest with `FOR UPDATE SKIP LOCKED` and leases it in the same statement:
/// deliverers claiming at once on several nodes each lock a different row instead of queueing behind one, and once
/// the claim commits the lease (`lease_until`) keeps the mail from everyone until its outcome is recorded or the
/// lease runs out. A deliverer whose statement began before another's claim committed re-checks the row it locks
/// (READ COMMITTED re-evaluates the conditions on the newest version), so it sees the lease and moves on.
/// `markSent`/`markAttemptFailed` are fenced by `attempts`: the outcome of a superseded claim changes nothing.
public final class PostgresOutboxStore: OutboxStore {
    private let pool: PostgresConnectionPool
    private let closed = Atomic(false)

    /// The outbox on `database`, migrating its schema first if this process has not yet.
    public init(database: PostgresDatabase) throws {
        pool = try database.prepared()
    }

    /// Runs `body` with a pooled connection, or throws 503 `UNAVAILABLE` once the outbox is closed. `idempotent`:
    /// `body` may run twice (reads, and the fenced outcomes), so a broken connection is retried once
    /// (`withIdempotentConnection`). Inserts and claims are not retried: a claim whose commit went through but whose
    /// answer was lost would lease a second mail that nobody sends until its lease runs out.
    @discardableResult
    private func withConnection<T>(idempotent: Bool = false, _ body: (PostgresConnection) throws -> T) throws -> T {
        guard !closed.load(ordering: .acquiring) else { throw APIError.unavailable("the mail outbox is closed") }
        return try idempotent ? pool.withIdempotentConnection(body) : pool.withConnection(body)
    }

    public func insert(_ mail: OutboxMail) throws {
        try withConnection { connection in
            try connection.query(
                """
                INSERT INTO outbox (id, status, sender, recipient, subject, action_link, message, created_at,
                                    next_attempt_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                """,
                [
                    .text(mail.id.rawValue), .text(mail.status.rawValue), .text(mail.sender), .text(mail.recipient),
                    .text(mail.subject), mail.actionLink.map(PostgresValue.text) ?? .null, .bytes(mail.message),
                    .int(mail.createdAt), mail.status == .pending ? .int(mail.createdAt) : .null,
                ], prepared: true)
        }
    }

    public func claimNext(now: Int64, lease: Int64) throws -> ClaimedMail? {
        try withConnection { connection in
            let rows = try connection.query(
                """
                UPDATE outbox SET attempts = attempts + 1, last_attempt_at = $1, lease_until = $2
                WHERE seq = (
                    SELECT seq FROM outbox
                    WHERE status = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)
                    ORDER BY next_attempt_at, seq LIMIT 1
                    FOR UPDATE SKIP LOCKED)
                RETURNING id, sender, recipient, message, attempts
                """, [.int(now), .int(now + max(0, lease))], resultFormat: .binary, prepared: true)
            guard rows.rowCount > 0 else { return nil }
            return ClaimedMail(
                id: MailID(rawValue: rows.string(0, 0) ?? ""), sender: rows.string(0, 1) ?? "",
                recipient: rows.string(0, 2) ?? "", message: rows.bytes(0, 3) ?? [],
                attempts: Int(try rows.int(0, 4) ?? 0))
        }
    }

    public func markSent(_ claim: ClaimedMail, now: Int64) throws {
        try withConnection(idempotent: true) { connection in
            try connection.query(
                """
                UPDATE outbox SET status = 'sent', sent_at = $1, next_attempt_at = NULL, last_error = NULL,
                                  lease_until = NULL
                WHERE id = $2 AND attempts = $3 AND status = 'pending'
                """, [.int(now), .text(claim.id.rawValue), .int(Int64(claim.attempts))], prepared: true)
        }
    }

    public func markAttemptFailed(_ claim: ClaimedMail, error: String, retryAt: Int64?) throws {
        try withConnection(idempotent: true) { connection in
            try connection.query(
                """
                UPDATE outbox SET status = $1, last_error = $2, next_attempt_at = $3, lease_until = NULL
                WHERE id = $4 AND attempts = $5 AND status = 'pending'
                """,
                [
                    .text((retryAt == nil ? OutboxStatus.failed : .pending).rawValue), .text(error),
                    retryAt.map(PostgresValue.int) ?? .null, .text(claim.id.rawValue), .int(Int64(claim.attempts)),
                ], prepared: true)
        }
    }

    public func nextDue() throws -> Int64? {
        try withConnection(idempotent: true) { connection in
            let rows = try connection.query(
                """
                SELECT min(greatest(next_attempt_at, coalesce(lease_until, 0))) FROM outbox WHERE status = 'pending'
                """, resultFormat: .binary, prepared: true)
            return try rows.int(0, 0)
        }
    }

    private static let entryColumns = """
        SELECT id, status, recipient, subject, action_link, attempts, last_error, created_at, last_attempt_at,
               next_attempt_at, sent_at FROM outbox
        """

    public func list(limit: Int, status: OutboxStatus?) throws -> [OutboxEntry] {
        let limit = Int64(max(0, min(limit, 1000)))
        return try withConnection(idempotent: true) { connection in
            let rows =
                if let status {
                    try connection.query(
                        Self.entryColumns + " WHERE status = $1 ORDER BY seq DESC LIMIT $2",
                        [.text(status.rawValue), .int(limit)], resultFormat: .binary, prepared: true)
                } else {
                    try connection.query(
                        Self.entryColumns + " ORDER BY seq DESC LIMIT $1", [.int(limit)], resultFormat: .binary,
                        prepared: true)
                }
            return try (0..<rows.rowCount).map { try Self.entry(rows, $0) }
        }
    }

    public func entry(_ id: MailID) throws -> OutboxEntry? {
        try withConnection(idempotent: true) { connection in
            let rows = try connection.query(
                Self.entryColumns + " WHERE id = $1", [.text(id.rawValue)], resultFormat: .binary, prepared: true)
            return rows.rowCount == 0 ? nil : try Self.entry(rows, 0)
        }
    }

    public func renderedMessage(_ id: MailID) throws -> [UInt8]? {
        try withConnection(idempotent: true) { connection in
            let rows = try connection.query(
                "SELECT message FROM outbox WHERE id = $1", [.text(id.rawValue)], resultFormat: .binary,
                prepared: true)
            return rows.rowCount == 0 ? nil : rows.bytes(0, 0)
        }
    }

    public func purge(queuedBefore cutoff: Int64) throws -> Int {
        try withConnection(idempotent: true) { connection in
            try connection.query(
                "DELETE FROM outbox WHERE status IN ('sent', 'held', 'failed') AND created_at < $1", [.int(cutoff)]
            ).affectedRows
        }
    }

    /// Marks the outbox closed; the pool stays open, since the node's other stores share it.
    public func close() {
        closed.store(true, ordering: .releasing)
    }

    private static func entry(_ rows: PostgresResult, _ row: Int) throws -> OutboxEntry {
        OutboxEntry(
            id: MailID(rawValue: rows.string(row, 0) ?? ""),
            status: OutboxStatus(rawValue: rows.string(row, 1) ?? "") ?? .pending, recipient: rows.string(row, 2) ?? "",
            subject: rows.string(row, 3) ?? "", actionLink: rows.string(row, 4),
            attempts: Int(try rows.int(row, 5) ?? 0), lastError: rows.string(row, 6),
            createdAt: try rows.int(row, 7) ?? 0, lastAttemptAt: try rows.int(row, 8),
            nextAttemptAt: try rows.int(row, 9), sentAt: try rows.int(row, 10))
    }
}
