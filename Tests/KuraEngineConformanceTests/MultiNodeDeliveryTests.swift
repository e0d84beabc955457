import Foundation
import KuraCore
import KuraMail
import KuraModel
import KuraTestSupport
import Synchronization
import Testing

/// Several nodes delivering one outbox: three `Mailer`s, each on an outbox instance of its own on one database (as
/// three nodes would open it), run their delivery workers at once against a real SMTP server. Every mail must reach
/// the relay exactly once.
@Suite struct MultiNodeDeliveryTests {
    static let mails = 60

    @Test("three nodes' workers deliver 60 queued mails, each exactly once", arguments: Engine.all)
    func threeWorkersDeliverEachMailOnce(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let directory = try TemporaryDirectory("multi-node-mail")
        defer { directory.remove() }
        let port = try TestEnvironment.freePort()
        let sink = try SMTPSink(port: port, directory: directory.file("sink"))
        defer { sink.stop() }
        let configuration = MailConfiguration(
            smtp: SMTPConfiguration(
                url: "smtp://127.0.0.1:\(port)", startTLS: .none, connectTimeout: .seconds(2), timeout: .seconds(10)),
            from: "Kura <noreply@kura.test>", retryBase: .milliseconds(20), retryMax: .milliseconds(100),
            pollInterval: .milliseconds(50))

        // Queued first, by a node without a worker, so that all three workers start on a full queue.
        let queueing = try Mailer(
            outbox: database.openOutbox(), configuration: configuration, logger: Self.logger(directory, "queue"),
            startWorker: false)
        var ids: [MailID] = []
        for index in 0..<Self.mails {
            ids.append(
                try queueing.enqueue(
                    MailMessage(
                        to: "user\(index)@example.com", subject: "mail \(index)", text: "text \(index)",
                        html: "<p>html \(index)</p>")))
        }
        queueing.shutdown()

        let outboxes = try (0..<3).map { _ in try database.openOutbox() }
        let nodes = Mutex<[Mailer]>([])
        let failures = Mutex<[String]>([])
        concurrently(3) { index in
            do {
                let mailer = try Mailer(
                    outbox: outboxes[index], configuration: configuration,
                    logger: Self.logger(directory, "node\(index)"))
                nodes.withLock { $0.append(mailer) }
            } catch {
                failures.withLock { $0.append("node \(index): \(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let mailers = nodes.withLock { $0 }
        try #require(mailers.count == 3)
        let watcher = try database.openOutbox()
        defer { watcher.close() }
        let allSent = try waitUntil(timeout: 60) {
            try watcher.list(limit: 1000, status: .sent).count == Self.mails
        }
        // Stopping the workers waits for any delivery still in flight, so what the sink holds afterwards is final.
        for mailer in mailers { mailer.shutdown() }
        let sentCount = try watcher.list(limit: 1000, status: .sent).count
        #expect(allSent, "sent: \(sentCount) of \(Self.mails)")

        let received = try sink.received()
        let recipients = received.compactMap { $0["rcptTos"]?.arrayValue?.first?.stringValue }
        #expect(received.count == Self.mails, "the relay got \(received.count) mails for \(Self.mails) queued")
        #expect(Set(recipients) == Set((0..<Self.mails).map { "user\($0)@example.com" }))
        for id in ids { #expect(try watcher.entry(id)?.status == .sent, "\(id)") }
    }

    /// A node's log, in the test's directory: the workers log each mail they send there.
    static func logger(_ directory: TemporaryDirectory, _ name: String) -> Logger {
        Logger(level: .info, fd: open(directory.file("\(name).log"), O_WRONLY | O_CREAT | O_APPEND, 0o600))
    }
}
