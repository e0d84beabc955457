/// How mail leaves Kura. The defaults are the embedded mode: no SMTP relay, so every mail is kept in the outbox as
/// `held` and its action link is logged (like Firebase's emulator).
///
/// | config key          | property                 | default                        |
/// | ------------------- | ------------------------ | ------------------------------ |
/// | `smtp.url`          | `smtp?.url`              | none: mails are held           |
/// | `smtp.username`     | `smtp?.username`         | none: no AUTH                  |
/// | `smtp.password`     | `smtp?.password`         | none                           |
/// | `smtp.startTLS`     | `smtp?.startTLS`         | `optional`                     |
/// | `smtp.from`         | `from`                   | `Kura <noreply@localhost>`     |
/// | `mail.retryBase`    | `retryBase`              | 1 s                            |
/// | `mail.retryMax`     | `retryMax`               | 5 min                          |
/// | `mail.maxAttempts`  | `maxAttempts`            | 50 (about 4 hours)             |
/// | `mail.pollInterval` | `pollInterval`           | 5 s                            |
public struct MailConfiguration: Sendable {
    /// The relay; `nil` keeps every mail `held` in the outbox and logs its action link instead.
    public var smtp: SMTPConfiguration?
    /// Sender mailbox for `From:` and the SMTP envelope, e.g. `My App <noreply@example.com>`.
    public var from: String
    /// Delay before the first retry; doubles per failed attempt (with jitter) up to `retryMax`.
    public var retryBase: Duration
    /// Longest delay between attempts.
    public var retryMax: Duration
    /// Attempts after which a mail is marked `failed` and no longer retried.
    public var maxAttempts: Int
    /// How often the delivery worker looks for due mail when nothing wakes it (enqueues wake it at once).
    public var pollInterval: Duration
    /// How long sent, held and failed mails stay in the outbox (their bodies hold action links); `.zero` keeps
    /// them for good. Default 7 days.
    public var retention: Duration = .seconds(7 * 86_400)
    /// Where held mails are also written whole (recipient, subject, text), e.g. the terminal for
    /// `kura serve --dev`; `nil` only logs their action link.
    public var printHeld: (@Sendable (String) -> Void)? = nil

    public init(
        smtp: SMTPConfiguration? = nil, from: String = "Kura <noreply@localhost>", retryBase: Duration = .seconds(1),
        retryMax: Duration = .seconds(300), maxAttempts: Int = 50, pollInterval: Duration = .seconds(5)
    ) {
        self.smtp = smtp
        self.from = from
        self.retryBase = retryBase
        self.retryMax = retryMax
        self.maxAttempts = maxAttempts
        self.pollInterval = pollInterval
    }

    /// The embedded default: no relay, mails held.
    public static let held = MailConfiguration()
}

/// An SMTP relay reached through libcurl.
public struct SMTPConfiguration: Sendable {
    /// `smtp://host[:port]` (STARTTLS per `startTLS`; port 25 by default, 587 usual for submission) or
    /// `smtps://host[:port]` (TLS from the first byte; port 465 by default).
    public var url: String
    /// AUTH user name; `nil` sends no AUTH.
    public var username: String?
    /// AUTH password.
    public var password: String?
    /// STARTTLS policy for `smtp://` URLs (ignored for `smtps://`, which is always TLS).
    public var startTLS: StartTLS
    /// Longest wait for the TCP (and TLS) connection.
    public var connectTimeout: Duration
    /// Longest time for one whole delivery, connection included.
    public var timeout: Duration
    /// Skips certificate verification (self-signed development relays only).
    public var allowInsecureTLS: Bool

    public init(
        url: String, username: String? = nil, password: String? = nil, startTLS: StartTLS = .optional,
        connectTimeout: Duration = .seconds(10), timeout: Duration = .seconds(60), allowInsecureTLS: Bool = false
    ) {
        self.url = url
        self.username = username
        self.password = password
        self.startTLS = startTLS
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.allowInsecureTLS = allowInsecureTLS
    }

    /// Whether `smtp://` connections upgrade with STARTTLS.
    public enum StartTLS: String, Sendable, CaseIterable {
        /// Fail unless the server offers STARTTLS: nothing, credentials included, goes out in clear.
        case required
        /// Upgrade when the server offers it, else continue in clear (opportunistic; an active attacker can strip
        /// it, so use `required` for relays across the internet).
        case optional
        /// Never upgrade (a relay on localhost or a private network).
        case none
    }
}

extension Duration {
    /// Whole milliseconds, rounded down, never negative.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}
