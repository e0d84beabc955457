import Foundation
import KuraCore
import KuraMail
import KuraModel
import KuraSQLite
import KuraSQLiteEngine
import Testing

/// The SQLite engine opens the files that Kura wrote before the store seams, and keeps what they hold.
@Suite struct SQLiteEngineUpgradeTests {
    @Test("a mail.db from before leases: its pending mail is delivered, its attempts kept")
    func outboxWithoutLeaseColumn() throws {
        let directory = NSTemporaryDirectory() + "kura-upgrade-\(SecureRandom.hex(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let old = try SQLiteConnection(path: directory + "/mail.db")
            try old.execute(
                """
                PRAGMA journal_mode = WAL;
                CREATE TABLE outbox (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, status TEXT NOT NULL,
                    sender TEXT NOT NULL, recipient TEXT NOT NULL, subject TEXT NOT NULL, action_link TEXT,
                    message BLOB NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT,
                    created_at INTEGER NOT NULL, last_attempt_at INTEGER, next_attempt_at INTEGER, sent_at INTEGER);
                CREATE INDEX outbox_due ON outbox(status, next_attempt_at);
                INSERT INTO outbox (id, status, sender, recipient, subject, message, attempts, last_error, created_at,
                                    last_attempt_at, next_attempt_at)
                VALUES ('old', 'pending', 'noreply@kura.test', 'a@example.com', 'hello', X'6869', 2, 'relay down',
                        100, 150, 200);
                """)
        }
        let outbox = try SQLiteOutboxStore(directory: directory)
        #expect(try outbox.nextDue() == 200)
        let claim = try #require(try outbox.claimNext(now: 300, lease: 1000))
        #expect(
            claim
                == ClaimedMail(
                    id: MailID(rawValue: "old"), sender: "noreply@kura.test", recipient: "a@example.com",
                    message: Array("hi".utf8), attempts: 3))
        try outbox.markSent(claim, now: 400)
        #expect(try outbox.entry(claim.id)?.status == .sent)
        // Reopening an upgraded file changes nothing.
        outbox.close()
        #expect(try SQLiteOutboxStore(directory: directory).entry(claim.id)?.attempts == 3)
    }
}
