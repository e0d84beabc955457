import KuraCore
import KuraModel

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

    public init(
        id: MailID, status: OutboxStatus, recipient: String, subject: String, actionLink: String?, attempts: Int,
        lastError: String?, createdAt: Int64, lastAttemptAt: Int64?, nextAttemptAt: Int64?, sentAt: Int64?
    ) {
        self.id = id
        self.status = status
        self.recipient = recipient
        self.subject = subject
        self.actionLink = actionLink
        self.attempts = attempts
        self.lastError = lastError
        self.createdAt = createdAt
        self.lastAttemptAt = lastAttemptAt
        self.nextAttemptAt = nextAttemptAt
        self.sentAt = sentAt
    }

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

/// A mail as the outbox first stores it.
public struct OutboxMail: Sendable, Equatable {
    public var id: MailID
    /// `.pending` (to be delivered) or `.held` (no relay configured: kept, never sent).
    public var status: OutboxStatus
    /// The envelope sender (`MAIL FROM`).
    public var sender: String
    public var recipient: String
    public var subject: String
    public var actionLink: String?
    /// The RFC 5322 text that is sent.
    public var message: [UInt8]
    /// Microseconds since the Unix epoch; a pending mail is due at once.
    public var createdAt: Int64

    public init(
        id: MailID, status: OutboxStatus, sender: String, recipient: String, subject: String, actionLink: String?,
        message: [UInt8], createdAt: Int64
    ) {
        self.id = id
        self.status = status
        self.sender = sender
        self.recipient = recipient
        self.subject = subject
        self.actionLink = actionLink
        self.message = message
        self.createdAt = createdAt
    }
}

/// A mail claimed for one delivery attempt. `attempts` (this attempt's number) also fences the claim: an outcome
/// recorded with a claim that has been superseded (its lease ran out and another deliverer claimed the mail) is
/// ignored.
public struct ClaimedMail: Sendable, Equatable {
    public var id: MailID
    public var sender: String
    public var recipient: String
    public var message: [UInt8]
    public var attempts: Int

    public init(id: MailID, sender: String, recipient: String, message: [UInt8], attempts: Int) {
        self.id = id
        self.sender = sender
        self.recipient = recipient
        self.message = message
        self.attempts = attempts
    }
}

/// The durable mail queue, shared by every deliverer (one per process or node). Implementations are thread-safe
/// and make each method atomic and durable before it returns. Times are microseconds since the Unix epoch.
///
/// Claims are leases: a claimed mail is not due for anyone until its outcome is recorded or `now + lease` passes
/// (then it is due again, for a deliverer that died mid-attempt), so deliverers running at once never send one
/// mail twice while the lease lasts. After `close()` every method throws 503 `UNAVAILABLE`.
public protocol OutboxStore: Sendable {
    /// Stores a new mail; returns once it is durable.
    func insert(_ mail: OutboxMail) throws
    /// Claims the pending mail due soonest (due by `now` and not leased), counts the attempt before it is made (so
    /// an attempt cut short by a crash still shows) and leases the mail until `now + lease`.
    func claimNext(now: Int64, lease: Int64) throws -> ClaimedMail?
    /// Records that the relay accepted the claimed mail; ignored when the claim was superseded.
    func markSent(_ claim: ClaimedMail, now: Int64) throws
    /// Records a failed attempt: due again at `retryAt`, or `failed` for good when `retryAt` is `nil`; ignored when
    /// the claim was superseded.
    func markAttemptFailed(_ claim: ClaimedMail, error: String, retryAt: Int64?) throws
    /// When the soonest pending mail is due (or its lease runs out), `nil` if none is pending.
    func nextDue() throws -> Int64?
    /// Newest first, at most `limit` (capped at 1000), optionally only those with `status`.
    func list(limit: Int, status: OutboxStatus?) throws -> [OutboxEntry]
    /// One mail by id.
    func entry(_ id: MailID) throws -> OutboxEntry?
    /// The stored RFC 5322 text of a mail.
    func renderedMessage(_ id: MailID) throws -> [UInt8]?
    /// Deletes the mails that are done with (sent, held or failed) and were queued before `cutoff`; pending mails
    /// stay whatever their age. Returns how many were deleted.
    func purge(queuedBefore cutoff: Int64) throws -> Int
    /// Releases the store; later calls throw 503 `UNAVAILABLE`. Idempotent.
    func close()
}
