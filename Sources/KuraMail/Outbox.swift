import KuraCore
import KuraModel
import KuraSQLite
import Synchronization

/// Where a mail is in its life.
public enum OutboxStatus: String, Sendable, CaseIterable {
    /// Waiting for (another) delivery attempt.
    case pending
    /// Accepted by the SMTP relay.
    case sent
    /// Kept because no SMTP relay is configured; never sent (see `Mailer`).
    case held
    /// Given up: a permanent SMTP rejection, or `maxAttempts` reached.
    case failed
}

/// One outbox row as the admin API lists it (the message text itself is not included).
public struct OutboxEntry: Sendable, Equatable {
    public var id: MailID
    public var status: OutboxStatus
    public var recipient: String
    public var subject: String
    public var actionLink: String?
    /// Delivery attempts started so far (an attempt cut short by a crash counts too).
    public var attempts: Int
    /// Why the last attempt failed, if it did.
    public var lastError: String?
    /// Microseconds since the Unix epoch.
    public var createdAt: Int64
    public var lastAttemptAt: Int64?
    /// When the worker tries next (pending mails only).
    public var nextAttemptAt: Int64?
    public var sentAt: Int64?

    /// The entry as JSON for `GET /api/admin/outbox`; times are RFC 3339, absent values are omitted.
    public var json: JSONValue {
        var object = JSONObject()
        object["id"] = .string(id.rawValue)
        object["status"] = .string(status.rawValue)
        object["to"] = .string(recipient)
        object["subject"] = .string(subject)
        if let actionLink { object["actionLink"] = .string(actionLink) }
        object["attempts"] = .int(Int64(attempts))
        if let lastError { object["lastError"] = .string(lastError) }
        object["createdAt"] = .string(RFC3339.format(createdAt))
        if let lastAttemptAt { object["lastAttemptAt"] = .string(RFC3339.format(lastAttemptAt)) }
        if let nextAttemptAt { object["nextAttemptAt"] = .string(RFC3339.format(nextAttemptAt)) }
        if let sentAt { object["sentAt"] = .string(RFC3339.format(sentAt)) }
        return .object(object)
    }
}

/// A mail claimed for one delivery attempt.
struct ClaimedMail: Sendable {
    var id: MailID
    var sender: String
    var recipient: String
    var message: [UInt8]
    var attempts: Int
}

/// The durable queue: `<directory>/mail.db`, WAL with `synchronous=FULL`, so a committed row survives power loss.
/// One connection behind a mutex; every write is one short transaction.
final class Outbox: Sendable {
    private let connection: Mutex<SQLiteConnection?>

    init(directory: String) throws {
        let db = try SQLiteConnection(path: directory + "/mail.db")
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
        connection = Mutex(db)
    }

    private func withDatabase<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try connection.withLock { db in
            guard let db else { throw APIError.unavailable("the mail outbox is closed") }
            return try body(db)
        }
    }

    /// Stores a new mail; returns once the transaction is durable.
    func insert(
        id: MailID, status: OutboxStatus, sender: String, message: MailMessage, rendered: [UInt8], now: Int64
    ) throws {
        try withDatabase { db in
            try db.run(
                """
                INSERT INTO outbox (id, status, sender, recipient, subject, action_link, message, created_at,
                                    next_attempt_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(id.rawValue), .text(status.rawValue), .text(sender), .text(message.to),
                    .text(message.subject), message.actionLink.map { .text($0) } ?? .null, .blob(rendered),
                    .int(now), status == .pending ? .int(now) : .null,
                ])
        }
    }

    /// Takes the pending mail due soonest (if due by `now`) and counts the attempt before it is made, so an attempt
    /// cut short by a crash still shows.
    func claimNext(now: Int64) throws -> ClaimedMail? {
        try withDatabase { db in
            try db.execute("BEGIN IMMEDIATE")
            do {
                let rows = try db.rows(
                    """
                    SELECT id, sender, recipient, message, attempts FROM outbox
                    WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, seq LIMIT 1
                    """, [.int(now)])
                guard let row = rows.first, let id = row[0].text else {
                    try db.execute("COMMIT")
                    return nil
                }
                try db.run(
                    "UPDATE outbox SET attempts = attempts + 1, last_attempt_at = ? WHERE id = ?",
                    [.int(now), .text(id)])
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

    /// Records that the relay accepted the mail.
    func markSent(_ id: MailID, now: Int64) throws {
        try withDatabase { db in
            try db.run(
                "UPDATE outbox SET status = 'sent', sent_at = ?, next_attempt_at = NULL, last_error = NULL WHERE id = ?",
                [.int(now), .text(id.rawValue)])
        }
    }

    /// Records a failed attempt: retried at `retryAt`, or `failed` for good when `retryAt` is `nil`.
    func markAttemptFailed(_ id: MailID, error: String, retryAt: Int64?) throws {
        try withDatabase { db in
            try db.run(
                "UPDATE outbox SET status = ?, last_error = ?, next_attempt_at = ? WHERE id = ?",
                [
                    .text((retryAt == nil ? OutboxStatus.failed : .pending).rawValue), .text(error),
                    retryAt.map { .int($0) } ?? .null, .text(id.rawValue),
                ])
        }
    }

    /// When the soonest pending mail is due, `nil` if none is pending.
    func nextDue() throws -> Int64? {
        try withDatabase { db in
            try db.rows("SELECT MIN(next_attempt_at) FROM outbox WHERE status = 'pending'").first?[0].int
        }
    }

    /// Newest first, optionally only those with `status`.
    func list(limit: Int, status: OutboxStatus?) throws -> [OutboxEntry] {
        let columns = """
            SELECT id, status, recipient, subject, action_link, attempts, last_error, created_at, last_attempt_at,
                   next_attempt_at, sent_at FROM outbox
            """
        let limit = Int64(max(0, min(limit, 1000)))
        return try withDatabase { db in
            let rows =
                if let status {
                    try db.rows(
                        columns + " WHERE status = ? ORDER BY seq DESC LIMIT ?", [.text(status.rawValue), .int(limit)])
                } else {
                    try db.rows(columns + " ORDER BY seq DESC LIMIT ?", [.int(limit)])
                }
            return rows.map(Self.entry)
        }
    }

    /// One mail by id.
    func entry(_ id: MailID) throws -> OutboxEntry? {
        try withDatabase { db in
            try db.rows(
                """
                SELECT id, status, recipient, subject, action_link, attempts, last_error, created_at, last_attempt_at,
                       next_attempt_at, sent_at FROM outbox WHERE id = ?
                """, [.text(id.rawValue)]
            ).first.map(Self.entry)
        }
    }

    /// Deletes the mails that are done with (sent, held or failed) and were queued before `cutoff`; pending mails
    /// stay whatever their age. Returns how many were deleted.
    func purge(queuedBefore cutoff: Int64) throws -> Int {
        try withDatabase { db in
            try db.run(
                "DELETE FROM outbox WHERE status IN ('sent', 'held', 'failed') AND created_at < ?", [.int(cutoff)])
            return Int(db.changes)
        }
    }

    /// The stored RFC 5322 text of a mail.
    func renderedMessage(_ id: MailID) throws -> [UInt8]? {
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

    /// Closes the database; later calls throw 503 `UNAVAILABLE`.
    func close() {
        connection.withLock { $0 = nil }
    }
}
