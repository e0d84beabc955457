import Foundation
import KuraCore
import KuraModel
import Synchronization

/// The mail module's entry point: a durable outbox plus the worker thread that delivers it.
///
/// `enqueue` returns once the mail is durable in the `OutboxStore` (the SQLite engine's is `<data>/mail.db`); the
/// worker then sends it and retries with backoff until the relay accepts it. Each attempt leases the mail for
/// `claimLease`, so several deliverers on one shared outbox never send a mail twice while the lease lasts. Delivery
/// is at-least-once: a mail is marked `sent` right after the relay's 250 reply to the data, so the only duplicate
/// comes from a crash (or a failed disk write) between that reply and the commit; the retry then carries the same
/// `Message-ID`. With no SMTP relay configured every mail is stored as
/// `held`, never sent, and its action link is logged.
public final class Mailer: Sendable {
    /// The configuration the mailer was started with.
    public let configuration: MailConfiguration
    let outbox: any OutboxStore
    private let logger: Logger
    private let sender: MailAddress
    private let worker: DeliveryWorker?
    /// What this process's mailer has done since it started (for `/metrics`).
    public let counts = MailCounts()

    /// The mailer on `outbox` (the SQLite engine opens one in the data directory: `Mailer(directory:)` in
    /// KuraSQLiteEngine). When an SMTP relay is configured and `startWorker` is `true`, starts the delivery worker,
    /// which first picks up whatever an earlier run left pending.
    public init(
        outbox: any OutboxStore, configuration: MailConfiguration = .held, logger: Logger, startWorker: Bool = true
    ) throws {
        guard let sender = MailAddress(parsing: configuration.from) else {
            throw APIError.badRequest("smtp.from is not a valid mailbox: \(configuration.from)")
        }
        if let smtp = configuration.smtp {
            let scheme = smtp.url.prefix { $0 != ":" }.lowercased()
            guard scheme == "smtp" || scheme == "smtps", smtp.url.contains("://") else {
                throw APIError.badRequest("smtp.url must start with smtp:// or smtps://")
            }
        }
        self.configuration = configuration
        self.sender = sender
        self.logger = logger
        self.outbox = outbox
        if let smtp = configuration.smtp, startWorker {
            worker = DeliveryWorker(
                outbox: outbox, transport: SMTPTransport(configuration: smtp), lease: Self.claimLease(smtp),
                retry: RetryPolicy(base: configuration.retryBase, max: configuration.retryMax),
                maxAttempts: max(1, configuration.maxAttempts), pollInterval: configuration.pollInterval,
                logger: logger, counts: counts)
            worker?.start()
        } else {
            worker = nil
        }
    }

    /// How long a delivery attempt holds its mail: the relay's whole-delivery `timeout` plus 30 s. After a crash
    /// mid-attempt the mail is due again once this has passed.
    static func claimLease(_ smtp: SMTPConfiguration) -> Duration { smtp.timeout + .seconds(30) }

    /// `true` when no relay is configured: mails are kept as `held`.
    public var isHolding: Bool { configuration.smtp == nil }

    /// Stores `message` durably and returns its id; the worker sends it soon after. Throws 400 `INVALID_ARGUMENT`
    /// for an invalid recipient, 503 `UNAVAILABLE` after `shutdown`, or the store's error.
    @discardableResult
    public func enqueue(_ message: MailMessage) throws -> MailID {
        try message.validate()
        let id = MailID.random()
        let now = WallClock.nowMicros()
        let domain = sender.address.split(separator: "@").last.map(String.init) ?? "localhost"
        let rendered = message.rfc5322(
            from: sender, dateSeconds: now / 1_000_000, messageID: "\(id.rawValue).\(SecureRandom.hex(4))@\(domain)",
            boundary: "=_kura_\(SecureRandom.hex(12))")
        let status: OutboxStatus = isHolding ? .held : .pending
        try outbox.insert(
            OutboxMail(
                id: id, status: status, sender: sender.address, recipient: message.to, subject: message.subject,
                actionLink: message.actionLink, message: Array(rendered.utf8), createdAt: now))
        if isHolding {
            // The embedded default: a developer follows the link from the log, as with Firebase's emulator.
            logger.info(
                "mail \(id) held (no SMTP relay configured) to=\(message.to) subject=\(message.subject)"
                    + " link=\(message.actionLink ?? "-")")
            counts.held.add(1, ordering: .relaxed)
            configuration.printHeld?(
                "--- mail \(id) (held: no SMTP relay) ---\nTo: \(message.to)\nSubject: \(message.subject)\n\n"
                    + message.text + "\n--- end of mail \(id) ---\n")
        } else {
            counts.queued.add(1, ordering: .relaxed)
            logger.debug("mail \(id) queued to=\(message.to)")
            worker?.wake()
        }
        return id
    }

    /// Queues the stored mail `id` again as a new outbox entry (the same message, bytes for bytes, to the same
    /// recipient), `pending` or, without a relay, `held`; returns the new id, or `nil` when there is no mail `id`.
    /// For an administrator whose relay refused a mail for good, or whose user lost it.
    public func resend(_ id: MailID) throws -> MailID? {
        guard let entry = try outbox.entry(id), let message = try outbox.renderedMessage(id) else { return nil }
        let copy = MailID.random()
        try outbox.insert(
            OutboxMail(
                id: copy, status: isHolding ? .held : .pending, sender: sender.address, recipient: entry.recipient,
                subject: entry.subject, actionLink: entry.actionLink, message: message,
                createdAt: WallClock.nowMicros()))
        logger.info("mail \(id) queued again as \(copy) to=\(entry.recipient)")
        if !isHolding { worker?.wake() }
        return copy
    }

    /// Outbox entries, newest first, at most `limit` (capped at 1000), optionally only those with `status`.
    public func list(limit: Int = 100, status: OutboxStatus? = nil) throws -> [OutboxEntry] {
        try outbox.list(limit: limit, status: status)
    }

    /// One outbox entry, `nil` if there is none with `id`.
    public func entry(_ id: MailID) throws -> OutboxEntry? {
        try outbox.entry(id)
    }

    /// The stored RFC 5322 text of a mail (what is or was sent), `nil` if there is none with `id`.
    public func renderedMessage(_ id: MailID) throws -> String? {
        try outbox.renderedMessage(id).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Deletes the mails that are done with (sent, held or failed) and were queued more than
    /// `configuration.retention` ago; pending mails stay. Returns how many were deleted. Runs hourly in `kura serve`.
    @discardableResult
    public func purge(now: Int64 = WallClock.nowMicros()) throws -> Int {
        guard configuration.retention > .zero else { return 0 }
        return try outbox.purge(queuedBefore: now - configuration.retention.milliseconds * 1000)
    }

    /// Stops the worker (aborting a delivery in progress, which stays pending and is retried by the next run) and
    /// closes the outbox. Idempotent.
    public func shutdown() {
        worker?.stop()
        outbox.close()
    }

    deinit { shutdown() }
}

/// The thread that sends pending mail: claims the mail due soonest, sends it, records the outcome, and sleeps until
/// the next mail is due, `pollInterval` passes, or `wake` is called.
final class DeliveryWorker: Sendable {
    private let outbox: any OutboxStore
    private let transport: SMTPTransport
    /// How long a claim holds its mail (microseconds).
    private let lease: Int64
    private let retry: RetryPolicy
    private let maxAttempts: Int
    private let pollInterval: Duration
    private let logger: Logger
    private let thread = ServiceThread(name: "kura-mail")
    private let cancel = CancellationFlag()
    private let counts: MailCounts

    init(
        outbox: any OutboxStore, transport: SMTPTransport, lease: Duration, retry: RetryPolicy, maxAttempts: Int,
        pollInterval: Duration, logger: Logger, counts: MailCounts
    ) {
        self.counts = counts
        self.outbox = outbox
        self.transport = transport
        self.lease = lease.milliseconds * 1000
        self.retry = retry
        self.maxAttempts = maxAttempts
        self.pollInterval = pollInterval
        self.logger = logger
    }

    func start() {
        thread.start { [self] in run() }
    }

    /// Makes the worker look for due mail now.
    func wake() { thread.wake() }

    /// Stops the thread and waits for it to finish.
    func stop() {
        cancel.set()
        thread.stop()
    }

    private func run() {
        while !thread.isStopping {
            var waitMicros = pollInterval.milliseconds * 1000
            do {
                while !thread.isStopping, let mail = try outbox.claimNext(now: WallClock.nowMicros(), lease: lease) {
                    deliver(mail)
                }
                if let due = try outbox.nextDue() { waitMicros = min(waitMicros, due - WallClock.nowMicros()) }
            } catch {
                logger.error("mail outbox: \(error)")
            }
            guard waitMicros > 0 else { continue }
            thread.sleep(nanoseconds: UInt64(waitMicros) * 1000)
        }
    }

    private func deliver(_ mail: ClaimedMail) {
        do {
            try transport.send(sender: mail.sender, recipients: [mail.recipient], data: mail.message, cancel: cancel)
        } catch {
            recordFailure(mail, error)
            return
        }
        // The at-least-once window: the relay has the mail; a crash before this commit sends it again.
        do {
            try outbox.markSent(mail, now: WallClock.nowMicros())
            counts.sent.add(1, ordering: .relaxed)
            logger.info("mail \(mail.id) sent to=\(mail.recipient) attempts=\(mail.attempts)")
        } catch {
            logger.error(
                "mail \(mail.id) was accepted by the relay but not marked sent, so it may be sent again: \(error)")
        }
    }

    private func recordFailure(_ mail: ClaimedMail, _ error: SMTPError) {
        if cancel.isSet {
            // Shutdown aborted it: due again at once for the next run, and the attempt is not held against it.
            try? outbox.markAttemptFailed(mail, error: "aborted by shutdown", retryAt: WallClock.nowMicros())
            return
        }
        let giveUp = error.isPermanent || mail.attempts >= maxAttempts
        let delay = retry.delay(afterAttempt: mail.attempts, jitter: Double.random(in: 0..<1))
        let retryAt = giveUp ? nil : WallClock.nowMicros() + delay.milliseconds * 1000
        do {
            try outbox.markAttemptFailed(mail, error: error.description, retryAt: retryAt)
        } catch {
            logger.error("mail \(mail.id): recording a failed attempt: \(error)")
        }
        if giveUp {
            counts.failed.add(1, ordering: .relaxed)
            logger.error("mail \(mail.id) failed for good after \(mail.attempts) attempts: \(error)")
        } else {
            counts.retried.add(1, ordering: .relaxed)
            logger.warn("mail \(mail.id) attempt \(mail.attempts) failed, retry in \(delay.milliseconds) ms: \(error)")
        }
    }
}

/// Mails by what became of them in this process since it started: counters only go up.
public final class MailCounts: Sendable {
    /// Stored as pending for the relay.
    public let queued = Atomic<UInt64>(0)
    /// Stored as held (no relay configured).
    public let held = Atomic<UInt64>(0)
    /// Accepted by the relay.
    public let sent = Atomic<UInt64>(0)
    /// Attempts that failed and will be retried.
    public let retried = Atomic<UInt64>(0)
    /// Given up on (a permanent refusal, or the last attempt failed).
    public let failed = Atomic<UInt64>(0)

    public init() {}
}
