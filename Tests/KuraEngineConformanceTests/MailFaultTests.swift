import Foundation
import KuraCore
import KuraMail
import KuraModel
import KuraTestSupport
import Testing

/// Mail delivery against a relay that misbehaves (smtp_sink.py's faults), on each engine's outbox: transient
/// refusals, a relay that never answers, connections dropped mid-transfer and a Kura restart all end with the mail
/// delivered; a permanent refusal marks it failed, visibly. Delivery is at least once: a relay that kept a message
/// and lost the connection before its 250 gets it again (docs/reliability.md, "Mail faults").
@Suite struct MailFaultTests {
    /// Quick retries, and a short reply timeout so that a relay that never answers costs a second.
    static func configuration(port: Int, maxAttempts: Int = 50) -> MailConfiguration {
        MailConfiguration(
            smtp: SMTPConfiguration(
                url: "smtp://127.0.0.1:\(port)", startTLS: .none, connectTimeout: .seconds(2), timeout: .seconds(1)),
            from: "Kura <noreply@kura.test>", retryBase: .milliseconds(20), retryMax: .milliseconds(100),
            maxAttempts: maxAttempts, pollInterval: .milliseconds(50))
    }

    static let quiet = Logger(level: .error, fd: open("/dev/null", O_WRONLY))

    /// Runs `body` with a relay that misbehaves as `faults` says (smtp_sink.py on a free port), an outbox on a
    /// fresh database of `engine`, and a Mailer delivering that outbox to the relay; tears all of it down after.
    static func withFaultyRelay(
        _ engine: Engine, faults: [String], _ body: (SMTPSink, any OutboxStore, Mailer) throws -> Void
    ) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let directory = try TemporaryDirectory("mail-faults")
        defer { directory.remove() }
        let port = try TestEnvironment.freePort()
        let sink = try SMTPSink(port: port, directory: directory.file("sink"), faults: faults)
        defer { sink.stop() }
        let outbox = try database.openOutbox()
        let mailer = try Mailer(outbox: outbox, configuration: configuration(port: port), logger: quiet)
        defer { mailer.shutdown() }
        try body(sink, outbox, mailer)
    }

    static func message(_ index: Int) -> MailMessage {
        MailMessage(to: "user\(index)@example.com", subject: "mail \(index)", text: "text", html: "<p>html</p>")
    }

    /// Waits until mail `id` has `status` in `outbox`; fails the test with the entry if it does not.
    @discardableResult
    static func waitFor(_ outbox: any OutboxStore, _ id: MailID, _ status: OutboxStatus, timeout: Double = 30)
        throws -> OutboxEntry?
    {
        let reached = try waitUntil(timeout: timeout) { try outbox.entry(id)?.status == status }
        let entry = try outbox.entry(id)
        #expect(reached, "mail never became \(status): \(String(describing: entry))")
        return entry
    }

    @Test(
        "refusals (4xx), a relay that never answers and dropped connections: the mail is delivered, once",
        arguments: Engine.all)
    func transientFaults(engine: Engine) throws {
        let faults = ["451", "timeout", "drop", "421", "drop"]
        try Self.withFaultyRelay(engine, faults: faults) { sink, outbox, mailer in
            let id = try mailer.enqueue(Self.message(1))
            let sent = try Self.waitFor(outbox, id, .sent)
            #expect(sent?.attempts == faults.count + 1)
            #expect(sink.faultsUsed == faults.count)
            let received = try sink.received()
            #expect(received.count == 1)
            #expect(received.first?["subject"]?.stringValue == "mail 1")
        }
    }

    @Test(
        "4xx then 5xx: the mail is marked failed with the relay's answer; the next one goes through",
        arguments: Engine.all)
    func permanentRefusal(engine: Engine) throws {
        try Self.withFaultyRelay(engine, faults: ["451", "550"]) { sink, outbox, mailer in
            let refused = try mailer.enqueue(Self.message(1))
            let failed = try Self.waitFor(outbox, refused, .failed)
            #expect(failed?.attempts == 2)
            #expect(failed?.lastError?.contains("550") == true, "\(String(describing: failed))")
            #expect(failed?.nextAttemptAt == nil)
            #expect(try mailer.list(status: .failed).map(\.id) == [refused])

            let next = try mailer.enqueue(Self.message(2))
            try Self.waitFor(outbox, next, .sent)
            #expect(try sink.received().compactMap { $0["subject"]?.stringValue } == ["mail 2"])
            #expect(try outbox.entry(refused)?.status == .failed)
        }
    }

    @Test(
        "a relay that kept the message but lost the connection before its 250 gets it again (at least once)",
        arguments: Engine.all)
    func duplicateAfterLostAnswer(engine: Engine) throws {
        try Self.withFaultyRelay(engine, faults: ["drop-after-accept"]) { sink, outbox, mailer in
            let id = try mailer.enqueue(Self.message(1))
            let sent = try Self.waitFor(outbox, id, .sent)
            #expect(sent?.attempts == 2)
            let received = try sink.received()
            #expect(received.count == 2)
            // The same message both times: a relay or mail client can drop the copy by its Message-ID.
            #expect(Set(received.compactMap { $0["messageID"]?.stringValue }).count == 1)
        }
    }

    @Test(
        "mails queued while the relay refuses survive a Kura restart and the relay's, and are each delivered once",
        arguments: Engine.all)
    func restarts(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let directory = try TemporaryDirectory("mail-faults")
        defer { directory.remove() }
        let port = try TestEnvironment.freePort()
        var ids: [MailID] = []
        do {
            // The relay refuses everything for now; a node queues five mails, tries them, and stops.
            let refusing = try SMTPSink(
                port: port, directory: directory.file("refusing"), faults: Array(repeating: "451", count: 1000))
            let outbox = try database.openOutbox()
            let first = try Mailer(outbox: outbox, configuration: Self.configuration(port: port), logger: Self.quiet)
            for index in 0..<5 { ids.append(try first.enqueue(Self.message(index))) }
            #expect(try waitUntil(timeout: 30) { try ids.allSatisfy { (try outbox.entry($0)?.attempts ?? 0) >= 1 } })
            first.shutdown()
            refusing.stop()
            #expect(try refusing.received().isEmpty)
        }
        // The relay comes back; so does Kura, on a new outbox instance of the same database (as after a restart).
        let sink = try SMTPSink(port: port, directory: directory.file("sink"))
        defer { sink.stop() }
        let outbox = try database.openOutbox()
        let second = try Mailer(outbox: outbox, configuration: Self.configuration(port: port), logger: Self.quiet)
        for id in ids { try Self.waitFor(outbox, id, .sent) }
        second.shutdown()
        let subjects = try sink.received().compactMap { $0["subject"]?.stringValue }
        #expect(subjects.sorted() == (0..<5).map { "mail \($0)" })
    }
}
