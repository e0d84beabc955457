import Foundation
import KuraTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `kura backup` beside a server under write load, restored by serving the backup directory.
@Suite struct BackupRestoreTests {
    @Test("kura backup under load: the restored server serves every document and account acknowledged before it")
    func backupUnderLoadRestores() throws {
        let root = try TemporaryDirectory("backup").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let data = root + "/data"
        let server = try ServerProcess(
            dataDirectory: data, logFile: root + "/kura.log", arguments: ["--set", "auth.rateLimits=false"])
        defer { server.stop() }
        let key = try String(contentsOfFile: data + "/admin.key", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let port = server.port
        // A composite index and a token issued before the backup: both must survive it.
        try
            #"{"indexes":[{"collectionGroup":"notes","queryScope":"COLLECTION","fields":[{"fieldPath":"w","order":"ASCENDING"},{"fieldPath":"n","order":"DESCENDING"}]}]}"#
            .write(toFile: data + "/kura.indexes.json", atomically: true, encoding: .utf8)

        let load = WriteLoad(port: port, adminKey: key)
        defer { load.stop() }
        // Enough acknowledged before the backup, however slow the machine.
        try Self.waitFor("40 documents and 4 accounts") {
            load.acknowledged.withLock { $0.documents.count >= 40 && $0.accounts.count >= 4 }
        }
        let signIn = try HTTPClient.send(
            port: port, "POST", "/api/auth/signin",
            body: JSON.encode(["email": "user0@example.com", "password": "password-0-0"]))
        let earlyToken = try #require(signIn.json["idToken"] as? String)

        let before = load.acknowledged.withLock { $0 }
        let backup = root + "/backup"
        let (status, output) = try CommandLineTests.kura(["backup", backup, "--data", data])
        #expect(status == 0, "\(output)")
        // The writers went on during the backup, and after it.
        try load.finish()
        // The backup directory is private: 0700, its files 0600.
        #expect(try Self.mode(backup) == 0o700)
        for name in try FileManager.default.contentsOfDirectory(atPath: backup) where name != "rules-history" {
            #expect(try Self.mode(backup + "/" + name) == 0o600, "\(name)")
        }
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: backup))
        for name in [
            "documents.db", "accounts.db", "mail.db", "admin.key", "auth-signing-keys.json", "kura.rules",
            "kura.indexes.json",
        ] {
            #expect(names.contains(name), "\(names)")
        }
        #expect(!names.contains("kura.lock") && !names.contains("backup.last"))
        // The running server's status says when and where the last backup went.
        let statusText = try HTTPClient.send(
            port: port, "GET", "/api/admin/status", headers: [("Authorization", "Bearer \(key)")]
        ).body
        #expect(statusText.contains(#""file":"\#((backup as NSString).standardizingPath)""#), "\(statusText)")
        // A second backup into the same directory is refused; nothing is changed.
        let again = try CommandLineTests.kura(["backup", backup, "--data", data])
        #expect(again.status == 2 && again.output.contains("already exists"), "\(again.output)")

        // Restore: serve the backup directory.
        let restored = try ServerProcess(dataDirectory: backup, logFile: root + "/restored.log")
        defer { restored.stop() }
        #expect(
            try String(contentsOfFile: backup + "/admin.key", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines) == key)
        try before.expectServed(port: restored.port, adminKey: key)
        // The signing keys came along: a token issued before the backup is accepted by the restored server.
        let me = try HTTPClient.send(
            port: restored.port, "GET", "/api/auth/me", headers: [("Authorization", "Bearer \(earlyToken)")])
        #expect(me.status == 200, "\(me.body)")
        // The declared index came along, ready.
        let indexes = try HTTPClient.send(
            port: restored.port, "GET", "/api/admin/indexes", headers: [("Authorization", "Bearer \(key)")])
        #expect(indexes.status == 200 && indexes.body.contains("READY"), "\(indexes.body)")
        // Internally consistent: every database passes its integrity check, indexes ready, rules compile.
        let doctor = try CommandLineTests.kura(["doctor", "--data", backup])
        #expect(doctor.status == 0, "\(doctor.output)")
    }

    static func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? 0) & 0o777
    }

    /// Polls `condition` every 10 ms; fails after 60 s (a generous bound for a loaded machine, not a measurement).
    static func waitFor(_ what: String, _ condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TestFailure("timed out waiting for \(what)") }
            usleep(10_000)
        }
    }
}

/// Writers against a server until `finish()`: two threads putting documents `notes/w{writer}-{n}` and one signing up
/// accounts, each recording what the server acknowledged.
final class WriteLoad: Sendable {
    /// What the writers had acknowledged: documents `notes/{id}` with their `n`, and accounts with their password.
    struct Acknowledged {
        var documents: [String: Int] = [:]
        var accounts: [(email: String, password: String)] = []

        /// Every document is served with its `n` (admin key), every account signs in with its password.
        func expectServed(port: Int, adminKey: String) throws {
            for (id, n) in documents.sorted(by: { $0.key < $1.key }) {
                let response = try HTTPClient.send(
                    port: port, "GET", "/api/docs/notes/\(id)", headers: [("Authorization", "Bearer \(adminKey)")])
                #expect(response.status == 200, "notes/\(id)")
                #expect((response.json["data"] as? [String: Any])?["n"] as? Int == n, "notes/\(id)")
            }
            for account in accounts {
                let response = try HTTPClient.send(
                    port: port, "POST", "/api/auth/signin",
                    body: JSON.encode(["email": account.email, "password": account.password]))
                #expect(response.status == 200, "\(account.email): \(response.body)")
            }
        }
    }

    let acknowledged = Mutex(Acknowledged())
    private let stopping = Atomic<Bool>(false)
    private let failures = Atomic<Int>(0)
    private let running = Atomic<Int>(0)

    init(port: Int, adminKey key: String) {
        for writer in 0..<2 {
            start { [self] in
                var n = 0
                while !stopping.load(ordering: .relaxed) {
                    let id = "w\(writer)-\(n)"
                    let status = try? HTTPClient.send(
                        port: port, "PUT", "/api/docs/notes/\(id)", headers: [("Authorization", "Bearer \(key)")],
                        body: JSON.encode(["data": ["w": writer, "n": n]])
                    ).status
                    if status == 200 {
                        acknowledged.withLock { $0.documents[id] = n }
                    } else {
                        failures.add(1, ordering: .relaxed)
                    }
                    n += 1
                }
            }
        }
        start { [self] in
            var n = 0
            while !stopping.load(ordering: .relaxed) {
                let email = "user\(n)@example.com"
                let password = "password-\(n)-\(n * 7)"
                let status = try? HTTPClient.send(
                    port: port, "POST", "/api/auth/signup", body: JSON.encode(["email": email, "password": password])
                ).status
                if status == 201 {
                    acknowledged.withLock { $0.accounts.append((email, password)) }
                } else {
                    failures.add(1, ordering: .relaxed)
                }
                n += 1
            }
        }
    }

    private func start(_ body: @escaping @Sendable () -> Void) {
        running.add(1, ordering: .relaxed)
        Thread { [self] in
            body()
            running.subtract(1, ordering: .relaxed)
        }.start()
    }

    /// Waits for one more acknowledged write, stops the writers and checks that every write succeeded.
    func finish() throws {
        let count = acknowledged.withLock { $0.documents.count + $0.accounts.count }
        try BackupRestoreTests.waitFor("writes after the backup") {
            acknowledged.withLock { $0.documents.count + $0.accounts.count } > count
        }
        stop()
        #expect(failures.load(ordering: .relaxed) == 0, "every write of the load must succeed")
    }

    /// Stops the writers and waits for them.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        while running.load(ordering: .relaxed) > 0 { usleep(1000) }
    }
}
