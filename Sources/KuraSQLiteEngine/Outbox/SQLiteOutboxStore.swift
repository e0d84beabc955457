import KuraCore
import KuraMail
import KuraModel
import KuraSQLite
import Synchronization

/// The SQLite engine's `OutboxStore`: `<directory>/mail.db`, WAL with `synchronous=FULL`, so a committed row
/// survives power loss. One connection behind a mutex; every write is one short transaction, and a claim takes the
/// write lock first (`BEGIN IMMEDIATE`), so claims by several instances on one file (or several processes) are
/// serialized and each sees the others' leases.
public final class SQLiteOutboxStore: OutboxStore {
    /// The database file's name in the data directory.
    public static let fileName = "mail.db"

    private let connection: Mutex<SQLiteConnection?>

    /// Opens (creating and migrating) `<directory>/mail.db`.
    public init(directory: String) throws {
        let db = try SQLiteConnection(path: directory + "/" + Self.fileName)
        try db.execute("PRAGMA journal_mode = WAL")
        try db.execute("PRAGMA synchronous = FULL")
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS outbox (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                id TEXT NOT NULL UNIQUE,
                status TEXT NOT NULL,
                sender TEXT NOT NULL,
                recipient TEXT NOT NULL,
                subject TEXT NOT NULL,
                action_link TEXT,
                message BLOB NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                last_error TEXT,
                created_at INTEGER NOT NULL,
                last_attempt_at INTEGER,
                next_attempt_at INTEGER,
                sent_at INTEGER
            );
            CREATE INDEX IF NOT EXISTS outbox_due ON outbox(status, next_attempt_at);
            """)
        // Outboxes from before claims were leases: add the lease column (NULL: not claimed).
        let columns = Set(try db.rows("PRAGMA table_info(outbox)").compactMap { $0[1].text })
        if !columns.contains("lease_until") { try db.execute("ALTER TABLE outbox ADD COLUMN lease_until INTEGER") }
        connection = Mutex(db)
    }

    private func withDatabase<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try connection.withLock { db in
            guard let db else { throw APIError.unavailable("the mail outbox is closed") }
            return try body(db)
        }
    }

    public func insert(_ mail: OutboxMail) throws {
        try withDatabase { db in
            try db.run(
                """
                INSERT INTO outbox (id, status, sender, recipient, subject, action_link, message, created_at,
                                    next_attempt_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(mail.id.rawValue), .text(mail.status.rawValue), .text(mail.sender), .text(mail.recipient),
                    .text(mail.subject), mail.actionLink.map { .text($0) } ?? .null, .blob(mail.message),
                    .int(mail.createdAt), mail.status == .pending ? .int(mail.createdAt) : .null,
                ])
        }
    }

    public func claimNext(now: Int64, lease: Int64) throws -> ClaimedMail? {
        try withDatabase { db in
            try db.execute("BEGIN IMMEDIATE")
            do {
                let rows = try db.rows(
                    """
                    SELECT id, sender, recipient, message, attempts FROM outbox
                    WHERE status = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
                    ORDER BY next_attempt_at, seq LIMIT 1
                    """, [.int(now), .int(now)])
                guard let row = rows.first, let id = row[0].text else {
                    try db.execute("COMMIT")
                    return nil
                }
                try db.run(
                    "UPDATE outbox SET attempts = attempts + 1, last_attempt_at = ?, lease_until = ? WHERE id = ?",
                    [.int(now), .int(now + max(0, lease)), .text(id)])
                try db.execute("COMMIT")
                return ClaimedMail(
                    id: MailID(rawValue: id), sender: row[1].text ?? "", recipient: row[2].text ?? "",
                    message: row[3].blob ?? [], attempts: Int(row[4].int ?? 0) + 1)
            } catch {
                try? db.execute("ROLLBACK")
                throw error
            }
        }
    }

    public func markSent(_ claim: ClaimedMail, now: Int64) throws {
        try withDatabase { db in
            try db.run(
                """
                UPDATE outbox SET status = 'sent', sent_at = ?, next_attempt_at = NULL, last_error = NULL,
                                  lease_until = NULL
                WHERE id = ? AND attempts = ? AND status = 'pending'
                """, [.int(now), .text(claim.id.rawValue), .int(Int64(claim.attempts))])
        }
    }

    public func markAttemptFailed(_ claim: ClaimedMail, error: String, retryAt: Int64?) throws {
        try withDatabase { db in
            try db.run(
                """
                UPDATE outbox SET status = ?, last_error = ?, next_attempt_at = ?, lease_until = NULL
                WHERE id = ? AND attempts = ? AND status = 'pending'
                """,
                [
                    .text((retryAt == nil ? OutboxStatus.failed : .pending).rawValue), .text(error),
                    retryAt.map { .int($0) } ?? .null, .text(claim.id.rawValue), .int(Int64(claim.attempts)),
                ])
        }
    }

    public func nextDue() throws -> Int64? {
        try withDatabase { db in
            try db.rows(
                "SELECT MIN(MAX(next_attempt_at, COALESCE(lease_until, 0))) FROM outbox WHERE status = 'pending'"
            ).first?[0].int
        }
    }

    private static let entryColumns = """
        SELECT id, status, recipient, subject, action_link, attempts, last_error, created_at, last_attempt_at,
               next_attempt_at, sent_at FROM outbox
        """

    public func list(limit: Int, status: OutboxStatus?) throws -> [OutboxEntry] {
        let limit = Int64(max(0, min(limit, 1000)))
        return try withDatabase { db in
            let rows =
                if let status {
                    try db.rows(
                        Self.entryColumns + " WHERE status = ? ORDER BY seq DESC LIMIT ?",
                        [.text(status.rawValue), .int(limit)])
                } else {
                    try db.rows(Self.entryColumns + " ORDER BY seq DESC LIMIT ?", [.int(limit)])
                }
            return rows.map(Self.entry)
        }
    }

    public func entry(_ id: MailID) throws -> OutboxEntry? {
        try withDatabase { db in
            try db.rows(Self.entryColumns + " WHERE id = ?", [.text(id.rawValue)]).first.map(Self.entry)
        }
    }

    public func purge(queuedBefore cutoff: Int64) throws -> Int {
        try withDatabase { db in
            try db.run(
                "DELETE FROM outbox WHERE status IN ('sent', 'held', 'failed') AND created_at < ?", [.int(cutoff)])
            return Int(db.changes)
        }
    }

    public func renderedMessage(_ id: MailID) throws -> [UInt8]? {
        try withDatabase { db in
            try db.rows("SELECT message FROM outbox WHERE id = ?", [.text(id.rawValue)]).first?[0].blob
        }
    }

    private static func entry(_ row: [SQLiteValue]) -> OutboxEntry {
        OutboxEntry(
            id: MailID(rawValue: row[0].text ?? ""), status: OutboxStatus(rawValue: row[1].text ?? "") ?? .pending,
            recipient: row[2].text ?? "", subject: row[3].text ?? "", actionLink: row[4].text,
            attempts: Int(row[5].int ?? 0), lastError: row[6].text, createdAt: row[7].int ?? 0,
            lastAttemptAt: row[8].int, nextAttemptAt: row[9].int, sentAt: row[10].int)
    }

    public func close() {
        connection.withLock { $0 = nil }
    }
}
