import Foundation
import KuraTestSupport
import Testing

/// The PostgreSQL backup docs/reliability.md documents ("Backup, restore and doctor"), run as written: `pg_dump`
/// beside serving nodes under write load, `pg_restore` into a new database, a node on it.
@Suite(TestPostgres.available) struct PostgresBackupTests {
    /// Runs a PostgreSQL client program from `TestPostgres.binaries`; returns its status and output.
    static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try runToEnd(URL(fileURLWithPath: TestPostgres.binaries + "/" + program), arguments)
    }

    @Test("pg_dump under load, pg_restore into a new database: the node serves everything acknowledged before")
    func dumpUnderLoadRestores() throws {
        let root = try TemporaryDirectory("backup-postgres")
        defer { root.remove() }
        let url = try TestPostgres.freshDatabase()
        let settings = [
            "--set", "store.engine=postgres", "--set", "store.url=\(url)", "--set", "auth.rateLimits=false",
        ]
        let server = try ServerProcess(
            dataDirectory: root.file("node"), logFile: root.file("node.log"), arguments: settings)
        defer { server.stop() }
        let key = try String(contentsOfFile: root.file("node/admin.key"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let load = WriteLoad(port: server.port, adminKey: key)
        defer { load.stop() }
        try BackupRestoreTests.waitFor("40 documents and 4 accounts") {
            load.acknowledged.withLock { $0.documents.count >= 40 && $0.accounts.count >= 4 }
        }
        let signIn = try HTTPClient.send(
            port: server.port, "POST", "/api/auth/signin",
            body: JSON.encode(["email": "user0@example.com", "password": "password-0-0"]))
        let earlyToken = try #require(signIn.json["idToken"] as? String)
        // kura backup refuses on PostgreSQL and names the tool.
        let refused = try CommandLineTests.kura(["backup", root.file("copy"), "--data", root.file("node")] + settings)
        #expect(refused.status == 2 && refused.output.contains("pg_dump"), "\(refused.output)")

        // The documented commands.
        let before = load.acknowledged.withLock { $0 }
        let dump = root.file("kura.dump")
        let dumped = try Self.run("pg_dump", ["--format=custom", "--file=\(dump)", url])
        #expect(dumped.status == 0, "\(dumped.output)")
        try load.finish()
        let restoredURL = try TestPostgres.freshDatabase()
        let restoredDump = try Self.run(
            "pg_restore", ["--no-owner", "--exit-on-error", "--dbname=\(restoredURL)", dump])
        #expect(restoredDump.status == 0, "\(restoredDump.output)")

        let restoredSettings = [
            "--set", "store.engine=postgres", "--set", "store.url=\(restoredURL)",
        ]
        let doctor = try CommandLineTests.kura(["doctor", "--data", root.file("restored")] + restoredSettings)
        // The restored node's data directory does not exist yet: that alone warns.
        #expect(doctor.status == 1, "\(doctor.output)")
        #expect(
            doctor.output.contains("OK   schema") && doctor.output.contains("matches this build"), "\(doctor.output)")
        let restored = try ServerProcess(
            dataDirectory: root.file("restored"), logFile: root.file("restored.log"), arguments: restoredSettings)
        defer { restored.stop() }
        // The admin key, signing keys, rules and accounts live in the database: all came along.
        #expect(
            try String(contentsOfFile: root.file("restored/admin.key"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines) == key)
        try before.expectServed(port: restored.port, adminKey: key)
        let me = try HTTPClient.send(
            port: restored.port, "GET", "/api/auth/me", headers: [("Authorization", "Bearer \(earlyToken)")])
        #expect(me.status == 200, "\(me.body)")
        let healthy = try CommandLineTests.kura(["doctor", "--data", root.file("restored")] + restoredSettings)
        #expect(healthy.status == 0, "\(healthy.output)")
    }
}
