import Foundation
import KuraCore
import KuraModel
import KuraSQLiteEngine
import KuraTestSupport
import Testing

@testable import KuraMail

/// Short timings so retries happen within milliseconds.
private func fastConfiguration(port: Int, username: String? = nil, password: String? = nil, maxAttempts: Int = 50)
    -> MailConfiguration
{
    MailConfiguration(
        smtp: SMTPConfiguration(
            url: "smtp://127.0.0.1:\(port)", username: username, password: password, startTLS: .none,
            connectTimeout: .seconds(2), timeout: .seconds(5)),
        from: "Kura テスト <noreply@kura.test>", retryBase: .milliseconds(20), retryMax: .milliseconds(100),
        maxAttempts: maxAttempts, pollInterval: .milliseconds(50))
}

/// Expected delivery errors (the relay is down on purpose) go nowhere.
private let quietLogger = Logger(level: .error, fd: open("/dev/null", O_WRONLY))

/// Waits until mail `id` has `status`; fails the test with the entry if it does not within `timeout` seconds.
@discardableResult
private func waitForStatus(_ mailer: Mailer, _ id: MailID, _ status: OutboxStatus, timeout: Double = 8) throws
    -> OutboxEntry
{
    let reached = try waitUntil(timeout: timeout) { try mailer.entry(id)?.status == status }
    let entry = try #require(try mailer.entry(id))
    #expect(reached, "mail never became \(status): \(entry)")
    return entry
}

@Suite struct DeliveryTests {
    @Test func enqueuedMailIsDeliveredAndParsesBack() throws {
        let directory = try TemporaryDirectory("mail").path
        let port = try TestEnvironment.freePort()
        let sink = try SMTPSink(port: port, directory: directory + "/sink")
        defer { sink.stop() }
        let mailer = try Mailer(directory: directory, configuration: fastConfiguration(port: port), logger: quietLogger)
        defer { mailer.shutdown() }

        let link = "https://kura.test/__/auth/action?mode=verifyEmail&oobCode=XYZ789"
        let message = MailTemplates.verification(
            to: "taro@example.jp", link: link, appName: "倉アプリ", language: .japanese)
        let id = try mailer.enqueue(message)
        let entry = try waitForStatus(mailer, id, .sent)
        #expect(entry.attempts == 1)
        #expect(entry.sentAt != nil)
        #expect(entry.lastError == nil)

        let mails = try sink.received()
        try #require(mails.count == 1)
        let mail = mails[0]
        #expect(mail["mailFrom"]?.stringValue == "noreply@kura.test")
        #expect(mail["rcptTos"] == ["taro@example.jp"])
        #expect(mail["from"]?.stringValue == "Kura テスト <noreply@kura.test>")
        #expect(mail["to"]?.stringValue == "taro@example.jp")
        #expect(mail["subject"]?.stringValue == "倉アプリ のメールアドレスを確認してください")
        #expect(mail["mimeVersion"]?.stringValue == "1.0")
        #expect(mail["messageID"]?.stringValue?.hasSuffix("@kura.test>") == true)
        #expect(mail["date"]?.stringValue?.hasSuffix("+0000") == true)
        #expect(mail["contentType"]?.stringValue == "multipart/alternative")
        #expect(mail["defects"] == [])
        let parts = (mail["parts"]?.arrayValue ?? []).compactMap { $0.objectValue }
        try #require(parts.count == 2)
        #expect(parts.map { $0["contentType"]?.stringValue } == ["text/plain", "text/html"])
        #expect(parts.allSatisfy { $0["charset"]?.stringValue == "utf-8" })
        let text = try #require(parts[0]["content"]?.stringValue)
        let html = try #require(parts[1]["content"]?.stringValue)
        #expect(text.contains(link))
        #expect(text.contains("メールアドレスを確認してください"))
        #expect(html.contains("href=\"https://kura.test/__/auth/action?mode=verifyEmail&amp;oobCode=XYZ789\""))
        // What was sent is what the outbox kept.
        #expect(try mailer.renderedMessage(id) == sink.raw(1))
    }

    @Test func relayDownThenUpDeliversExactlyOnce() throws {
        let directory = try TemporaryDirectory("mail").path
        let port = try TestEnvironment.freePort()
        let mailer = try Mailer(directory: directory, configuration: fastConfiguration(port: port), logger: quietLogger)
        defer { mailer.shutdown() }

        let id = try mailer.enqueue(
            MailTemplates.passwordReset(
                to: "a@example.com", link: "https://x.test/r", appName: "Kura", language: .english))
        let failing = try waitUntil(timeout: 8) { (try mailer.entry(id)?.attempts ?? 0) >= 2 }
        #expect(failing)
        let pending = try #require(try mailer.entry(id))
        #expect(pending.status == .pending)
        #expect(pending.lastError?.isEmpty == false)
        #expect(pending.nextAttemptAt != nil)
        #expect(try mailer.list(status: .pending).map(\.id) == [id])

        let sink = try SMTPSink(port: port, directory: directory + "/sink")
        defer { sink.stop() }
        let sent = try waitForStatus(mailer, id, .sent)
        #expect(sent.attempts >= 3)
        // More worker ticks (poll interval 50 ms) must not send it again.
        usleep(400_000)
        #expect(try sink.received().count == 1)
        #expect(try mailer.entry(id)?.status == .sent)
    }

    @Test func restartBeforeDeliveryStillDelivers() throws {
        let directory = try TemporaryDirectory("mail").path
        let port = try TestEnvironment.freePort()
        var ids: [MailID] = []
        do {
            // The relay is down while the first run tries; then Kura stops.
            let first = try Mailer(
                directory: directory, configuration: fastConfiguration(port: port), logger: quietLogger)
            ids.append(try first.enqueue(MailMessage(to: "a@example.com", subject: "one", text: "1", html: "<p>1</p>")))
            #expect(try waitUntil(timeout: 8) { (try first.entry(ids[0])?.attempts ?? 0) >= 1 })
            first.shutdown()
            #expect(throws: APIError.self) { try first.list() }
        }
        do {
            // A run without a worker (it stops before any attempt).
            let second = try Mailer(
                directory: directory, configuration: fastConfiguration(port: port), logger: quietLogger,
                startWorker: false)
            ids.append(
                try second.enqueue(MailMessage(to: "b@example.com", subject: "two", text: "2", html: "<p>2</p>")))
            second.shutdown()
        }
        let sink = try SMTPSink(port: port, directory: directory + "/sink")
        defer { sink.stop() }
        let third = try Mailer(directory: directory, configuration: fastConfiguration(port: port), logger: quietLogger)
        defer { third.shutdown() }
        for id in ids { try waitForStatus(third, id, .sent) }
        usleep(200_000)
        let mails = try sink.received()
        #expect(mails.count == 2)
        #expect(Set(mails.compactMap { $0["subject"]?.stringValue }) == ["one", "two"])
    }

    @Test func authenticatesWithUsernameAndPassword() throws {
        let directory = try TemporaryDirectory("mail").path
        let port = try TestEnvironment.freePort()
        let sink = try SMTPSink(port: port, directory: directory + "/sink", user: "kura", password: "s3cret")
        defer { sink.stop() }
        let configuration = fastConfiguration(port: port, username: "kura", password: "s3cret")
        let mailer = try Mailer(directory: directory, configuration: configuration, logger: quietLogger)
        defer { mailer.shutdown() }
        let id = try mailer.enqueue(MailMessage(to: "a@example.com", subject: "auth", text: "t", html: "h"))
        try waitForStatus(mailer, id, .sent)
        #expect(try sink.received().count == 1)
    }

    @Test func givesUpAfterMaxAttempts() throws {
        let directory = try TemporaryDirectory("mail").path
        let port = try TestEnvironment.freePort()
        let mailer = try Mailer(
            directory: directory, configuration: fastConfiguration(port: port, maxAttempts: 2), logger: quietLogger)
        defer { mailer.shutdown() }
        let id = try mailer.enqueue(MailMessage(to: "a@example.com", subject: "x", text: "t", html: "h"))
        let entry = try waitForStatus(mailer, id, .failed)
        #expect(entry.attempts == 2)
        #expect(entry.nextAttemptAt == nil)
        #expect(entry.lastError?.isEmpty == false)
    }
}
