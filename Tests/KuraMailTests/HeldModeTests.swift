import Foundation
import KuraCore
import KuraModel
import KuraSQLiteEngine
import KuraTestSupport
import Testing

@testable import KuraMail

@Suite struct HeldModeTests {
    @Test func withoutSMTPMailsAreHeldListedAndTheirLinksLogged() throws {
        let directory = try TemporaryDirectory("mail").path
        let logPath = directory + "/log.txt"
        let fd = open(logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        let mailer = try Mailer(directory: directory, logger: Logger(level: .info, fd: fd))
        #expect(mailer.isHolding)

        let link = "https://kura.test/action?oobCode=HELD1"
        let first = try mailer.enqueue(
            MailTemplates.verification(to: "a@example.com", link: link, appName: "Kura", language: .english))
        let second = try mailer.enqueue(
            MailTemplates.passwordReset(to: "b@example.com", link: link + "2", appName: "Kura", language: .japanese))

        let entries = try mailer.list()
        #expect(entries.map(\.id) == [second, first])  // newest first
        #expect(entries.allSatisfy { $0.status == .held && $0.attempts == 0 && $0.nextAttemptAt == nil })
        #expect(entries[1].actionLink == link)
        #expect(entries[1].recipient == "a@example.com")
        #expect(entries[0].subject == "Kura のパスワードの再設定")
        #expect(try mailer.list(limit: 1).map(\.id) == [second])
        #expect(try mailer.list(status: .held).count == 2)
        #expect(try mailer.list(status: .pending).isEmpty)

        let json = try #require(entries[1].json.objectValue)
        #expect(json["status"] == "held")
        #expect(json["actionLink"]?.stringValue == link)
        #expect(json["to"] == "a@example.com")
        #expect(json["sentAt"] == nil)

        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(log.contains("link=\(link)"))
        #expect(log.contains("mail \(first) held"))

        // Held mails survive a restart and are not sent by it.
        mailer.shutdown()
        let reopened = try Mailer(directory: directory, logger: Logger(level: .error))
        defer { reopened.shutdown() }
        #expect(try reopened.list(status: .held).count == 2)
        #expect(try reopened.entry(first)?.actionLink == link)
        #expect(try reopened.entry(MailID(rawValue: "missing")) == nil)
    }

    @Test func finishedMailsAreDeletedAfterTheRetentionAndPendingOnesStay() throws {
        let directory = try TemporaryDirectory("mail").path
        var configuration = MailConfiguration.held
        configuration.retention = .seconds(3600)
        let mailer = try Mailer(directory: directory, configuration: configuration, logger: Logger(level: .error))
        defer { mailer.shutdown() }
        let message = MailMessage(to: "a@example.com", subject: "s", text: "t", html: "h")
        let old = try mailer.enqueue(message)
        // Three mails as a relay would have left them: still pending, failed for good, sent.
        let now = WallClock.nowMicros()
        for name in ["pending", "failed", "sent"] {
            try mailer.outbox.insert(
                OutboxMail(
                    id: MailID(rawValue: name), status: .pending, sender: "noreply@localhost",
                    recipient: "a@example.com",
                    subject: "s", actionLink: nil, message: [], createdAt: now))
        }
        var claims: [ClaimedMail] = []
        while let claim = try mailer.outbox.claimNext(now: now, lease: 60_000_000) { claims.append(claim) }
        try #require(claims.map(\.id.rawValue) == ["pending", "failed", "sent"])
        let pending = claims[0].id
        try mailer.outbox.markAttemptFailed(claims[0], error: "relay down", retryAt: 0)
        try mailer.outbox.markAttemptFailed(claims[1], error: "rejected", retryAt: nil)
        try mailer.outbox.markSent(claims[2], now: now)
        let queued = try #require(mailer.entry(old)?.createdAt)

        // Not yet an hour old: everything stays.
        #expect(try mailer.purge(now: queued + 3_599_000_000) == 0)
        #expect(try mailer.list().count == 4)
        // Over an hour: held, failed and sent go; the pending one stays.
        #expect(try mailer.purge(now: WallClock.nowMicros() + 3_601_000_000) == 3)
        #expect(try mailer.list().map(\.id) == [pending])

        // A retention of zero keeps everything.
        var keepAll = MailConfiguration.held
        keepAll.retention = .zero
        mailer.shutdown()
        let reopened = try Mailer(directory: directory, configuration: keepAll, logger: Logger(level: .error))
        defer { reopened.shutdown() }
        try reopened.enqueue(message)
        #expect(try reopened.purge(now: WallClock.nowMicros() + 1_000_000_000_000) == 0)
        #expect(try reopened.list().count == 2)
    }

    @Test func invalidRecipientIsRejectedBeforeStoring() throws {
        let directory = try TemporaryDirectory("mail").path
        let mailer = try Mailer(directory: directory, logger: Logger(level: .error))
        defer { mailer.shutdown() }
        #expect(throws: APIError.self) {
            try mailer.enqueue(MailMessage(to: "a@b.c\r\nBcc: x@y.z", subject: "s", text: "t", html: "h"))
        }
        #expect(try mailer.list().isEmpty)
    }

    @Test func invalidConfigurationIsRejected() throws {
        let directory = try TemporaryDirectory("mail").path
        #expect(throws: APIError.self) {
            try Mailer(directory: directory, configuration: MailConfiguration(from: "not an address"), logger: Logger())
        }
        #expect(throws: APIError.self) {
            try Mailer(
                directory: directory, configuration: MailConfiguration(smtp: SMTPConfiguration(url: "http://x")),
                logger: Logger())
        }
    }
}
