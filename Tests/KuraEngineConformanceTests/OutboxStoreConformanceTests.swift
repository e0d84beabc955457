import KuraCore
import KuraMail
import KuraModel
import Synchronization
import Testing

/// The `OutboxStore` contract on every engine: durable queueing, claims as leases, fenced outcomes, and several
/// deliverers on one database never getting the same mail.
@Suite struct OutboxStoreConformanceTests {
    static let second: Int64 = 1_000_000
    static let start: Int64 = 1_800_000_000 * second

    static func mail(_ name: String, status: OutboxStatus = .pending, at time: Int64 = start) -> OutboxMail {
        OutboxMail(
            id: MailID(rawValue: name), status: status, sender: "noreply@kura.test", recipient: "\(name)@example.com",
            subject: "subject \(name)", actionLink: status == .held ? "https://kura.test/a?oobCode=\(name)" : nil,
            message: Array("message \(name)\r\n".utf8), createdAt: time)
    }

    @Test(arguments: Engine.all)
    func insertedMailsAreListedNewestFirst(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let outbox = try database.openOutbox()
        try outbox.insert(Self.mail("a"))
        try outbox.insert(Self.mail("b", status: .held, at: Self.start + 1))
        try outbox.insert(Self.mail("c", at: Self.start + 2))
        #expect(try outbox.list(limit: 10, status: nil).map(\.id.rawValue) == ["c", "b", "a"])
        #expect(try outbox.list(limit: 2, status: nil).map(\.id.rawValue) == ["c", "b"])
        #expect(try outbox.list(limit: 10, status: .pending).map(\.id.rawValue) == ["c", "a"])
        let held = try #require(try outbox.entry(MailID(rawValue: "b")))
        #expect(
            held
                == OutboxEntry(
                    id: MailID(rawValue: "b"), status: .held, recipient: "b@example.com", subject: "subject b",
                    actionLink: "https://kura.test/a?oobCode=b", attempts: 0, lastError: nil, createdAt: Self.start + 1,
                    lastAttemptAt: nil, nextAttemptAt: nil, sentAt: nil))
        #expect(try outbox.entry(MailID(rawValue: "a"))?.nextAttemptAt == Self.start)
        #expect(try outbox.renderedMessage(MailID(rawValue: "a")) == Array("message a\r\n".utf8))
        #expect(try outbox.entry(MailID(rawValue: "zz")) == nil)
        #expect(try outbox.renderedMessage(MailID(rawValue: "zz")) == nil)
    }

    @Test("held mails are never claimed; pending ones in due order", arguments: Engine.all)
    func claimsTakeTheMailDueSoonest(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let outbox = try database.openOutbox()
        try outbox.insert(Self.mail("held", status: .held))
        try outbox.insert(Self.mail("later", at: Self.start + 5))
        try outbox.insert(Self.mail("sooner", at: Self.start + 1))
        #expect(try outbox.claimNext(now: Self.start, lease: 60 * Self.second) == nil)
        #expect(try outbox.nextDue() == Self.start + 1)
        let claim = try #require(try outbox.claimNext(now: Self.start + 10, lease: 60 * Self.second))
        #expect(
            claim
                == ClaimedMail(
                    id: MailID(rawValue: "sooner"), sender: "noreply@kura.test", recipient: "sooner@example.com",
                    message: Array("message sooner\r\n".utf8), attempts: 1))
        let entry = try #require(try outbox.entry(claim.id))
        #expect(entry.attempts == 1 && entry.lastAttemptAt == Self.start + 10 && entry.status == .pending)
        #expect(try outbox.claimNext(now: Self.start + 10, lease: 60 * Self.second)?.id.rawValue == "later")
        #expect(try outbox.claimNext(now: Self.start + 10, lease: 60 * Self.second) == nil)
    }

    @Test("a claimed mail is not due again until its lease runs out", arguments: Engine.all)
    func claimsAreLeases(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let outbox = try database.openOutbox()
        try outbox.insert(Self.mail("a"))
        let lease = 60 * Self.second
        let first = try #require(try outbox.claimNext(now: Self.start, lease: lease))
        #expect(try outbox.claimNext(now: Self.start + lease - 1, lease: lease) == nil)
        #expect(try outbox.nextDue() == Self.start + lease)
        // The deliverer died: after the lease the mail is due again, as a new attempt.
        let second = try #require(try outbox.claimNext(now: Self.start + lease, lease: lease))
        #expect(second.id == first.id && second.attempts == 2)
        // The first claim is superseded: what it reports is ignored.
        try outbox.markSent(first, now: Self.start + lease + 1)
        #expect(try outbox.entry(first.id)?.status == .pending)
        try outbox.markAttemptFailed(first, error: "late", retryAt: nil)
        #expect(try outbox.entry(first.id)?.status == .pending)
        try outbox.markSent(second, now: Self.start + lease + 2)
        let sent = try #require(try outbox.entry(first.id))
        #expect(sent.status == .sent && sent.sentAt == Self.start + lease + 2 && sent.nextAttemptAt == nil)
        #expect(try outbox.nextDue() == nil)
    }

    @Test(arguments: Engine.all)
    func failedAttemptsAreRetriedOrGivenUp(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let outbox = try database.openOutbox()
        try outbox.insert(Self.mail("a"))
        let lease = 60 * Self.second
        let first = try #require(try outbox.claimNext(now: Self.start, lease: lease))
        try outbox.markAttemptFailed(first, error: "421 try later", retryAt: Self.start + 5)
        var entry = try #require(try outbox.entry(first.id))
        #expect(entry.status == .pending && entry.lastError == "421 try later" && entry.nextAttemptAt == Self.start + 5)
        // The outcome ends the lease: due at the retry time, not at the lease's end.
        #expect(try outbox.nextDue() == Self.start + 5)
        #expect(try outbox.claimNext(now: Self.start + 4, lease: lease) == nil)
        let second = try #require(try outbox.claimNext(now: Self.start + 5, lease: lease))
        #expect(second.attempts == 2)
        try outbox.markAttemptFailed(second, error: "550 no such user", retryAt: nil)
        entry = try #require(try outbox.entry(first.id))
        #expect(entry.status == .failed && entry.attempts == 2 && entry.lastError == "550 no such user")
        #expect(try outbox.claimNext(now: Self.start + 10 * lease, lease: lease) == nil)
    }

    @Test(arguments: Engine.all)
    func purgingKeepsPendingMails(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let outbox = try database.openOutbox()
        try outbox.insert(Self.mail("old-held", status: .held))
        try outbox.insert(Self.mail("old-sent"))
        try outbox.insert(Self.mail("old-pending"))
        try outbox.insert(Self.mail("new-held", status: .held, at: Self.start + 100))
        let claim = try #require(try outbox.claimNext(now: Self.start, lease: 1))
        #expect(claim.id.rawValue == "old-sent")
        try outbox.markSent(claim, now: Self.start)
        #expect(try outbox.purge(queuedBefore: Self.start + 50) == 2)
        #expect(try outbox.list(limit: 10, status: nil).map(\.id.rawValue) == ["new-held", "old-pending"])
    }

    @Test(arguments: Engine.all)
    func aClosedOutboxAnswersUnavailable(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let outbox = try database.openOutbox()
        outbox.close()
        outbox.close()
        #expect(throws: APIError.self) { try outbox.insert(Self.mail("a")) }
        #expect(throws: APIError.self) { try outbox.list(limit: 1, status: nil) }
    }

    @Test("two instances on one database see each other's mails and outcomes", arguments: Engine.all)
    func instancesShareTheQueue(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let first = try database.openOutbox()
        let second = try database.openOutbox()
        try first.insert(Self.mail("a"))
        let claim = try #require(try second.claimNext(now: Self.start, lease: 60 * Self.second))
        #expect(try first.claimNext(now: Self.start, lease: 60 * Self.second) == nil)
        try second.markSent(claim, now: Self.start + 1)
        #expect(try first.entry(claim.id)?.status == .sent)
    }

    @Test("deliverers claiming at once through two instances never get the same mail", arguments: Engine.all)
    func concurrentClaimsAreExclusive(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let instances = [try database.openOutbox(), try database.openOutbox()]
        let names = (0..<60).map { "m\($0)" }
        for (index, name) in names.enumerated() {
            try instances[0].insert(Self.mail(name, at: Self.start + Int64(index)))
        }
        let claimed = Mutex<[String]>([])
        let errors = Mutex(0)
        concurrently(6) { worker in
            let outbox = instances[worker % 2]
            // Bounded, so that a store handing out one mail twice fails the test instead of looping for ever.
            for _ in 0...names.count {
                do {
                    guard let claim = try outbox.claimNext(now: Self.start + 1000, lease: 600 * Self.second) else {
                        return
                    }
                    claimed.withLock { $0.append(claim.id.rawValue) }
                } catch {
                    errors.withLock { $0 += 1 }
                    return
                }
            }
        }
        let all = claimed.withLock { $0 }
        #expect(errors.withLock { $0 } == 0)
        #expect(all.count == names.count, "a mail was claimed twice or not at all")
        #expect(Set(all) == Set(names))
    }
}
