import Foundation
import KuraTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The commands documented as safe beside a running server leave its databases alone (no `-wal` or `-shm` file
/// removed), the files they write are private, and a refused import leaves nothing that stops `kura serve`.
@Suite struct CommandSafetyTests {
    /// Runs `kura ARGUMENTS` under `umask`; returns the exit status and what it printed.
    static func kura(_ arguments: [String], umask: String = "022") throws -> (status: Int32, output: String) {
        try runToEnd(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "umask \(umask) && exec \"$0\" \"$@\"", KuraBinary.url.path] + arguments)
    }

    static func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test("kura admin create-user beside a running server: its users keep working, the WAL files stay")
    func createUserBesideServer() throws {
        let root = try TemporaryDirectory("safety").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let data = root + "/data"
        let server = try ServerProcess(dataDirectory: data, logFile: root + "/kura.log")
        defer { server.stop() }
        let signUp = try HTTPClient.send(
            port: server.port, "POST", "/api/auth/signup",
            body: JSON.encode(["email": "ann@example.com", "password": "ann-password"]))
        #expect(signUp.status == 201)
        let uid = try #require((signUp.json["user"] as? [String: Any])?["uid"] as? String)
        let token = try #require(signUp.json["idToken"] as? String)
        let put = try HTTPClient.send(
            port: server.port, "PUT", "/api/docs/users/\(uid)/notes/a", headers: [("Authorization", "Bearer \(token)")],
            body: JSON.encode(["data": ["n": 1]]))
        #expect(put.status == 200)

        for email in ["ops@example.com", "second@example.com"] {
            let created = try Self.kura([
                "admin", "create-user", "--email", email, "--password", "ops-password", "--data", data,
            ])
            #expect(created.status == 0, "\(created.output)")
        }
        for suffix in ["-wal", "-shm"] {
            #expect(FileManager.default.fileExists(atPath: data + "/accounts.db" + suffix), "accounts.db\(suffix)")
        }
        // The server's existing sessions and the new accounts both work.
        let read = try HTTPClient.send(
            port: server.port, "GET", "/api/docs/users/\(uid)/notes/a", headers: [("Authorization", "Bearer \(token)")])
        #expect(read.status == 200, "\(read.body)")
        let refreshed = try HTTPClient.send(
            port: server.port, "POST", "/api/auth/signin",
            body: JSON.encode(["email": "ann@example.com", "password": "ann-password"]))
        #expect(refreshed.status == 200)
        let ops = try HTTPClient.send(
            port: server.port, "POST", "/api/auth/signin",
            body: JSON.encode(["email": "ops@example.com", "password": "ops-password"]))
        #expect(ops.status == 200)
        #expect(server.terminate() == 0)

        // With no server, the command is the last to close the database; it still leaves the WAL files (SQLite
        // would delete them then), so it never deletes them under a server that lost its locks.
        let alone = try Self.kura(["admin", "create-user", "--email", "third@example.com", "--data", data])
        #expect(alone.status == 0, "\(alone.output)")
        for suffix in ["-wal", "-shm"] {
            #expect(FileManager.default.fileExists(atPath: data + "/accounts.db" + suffix), "accounts.db\(suffix)")
        }
        let again = try ServerProcess(dataDirectory: data, logFile: root + "/kura.log")
        defer { again.stop() }
        let third = try HTTPClient.send(
            port: again.port, "POST", "/api/auth/signin",
            body: JSON.encode(["email": "ops@example.com", "password": "ops-password"]))
        #expect(third.status == 200)
    }

    @Test("kura backup and kura export write private files whatever the umask")
    func privateFiles() throws {
        let root = try TemporaryDirectory("safety").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let data = root + "/data"
        let server = try ServerProcess(dataDirectory: data, logFile: root + "/kura.log")
        defer { server.stop() }
        let key = try String(contentsOfFile: data + "/admin.key", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let put = try HTTPClient.send(
            port: server.port, "PUT", "/api/docs/notes/a", headers: [("Authorization", "Bearer \(key)")],
            body: JSON.encode(["data": ["n": 1]]))
        #expect(put.status == 200)
        for umask in ["022", "000"] {
            let backup = root + "/copy-\(umask)"
            let backedUp = try Self.kura(["backup", backup, "--data", data], umask: umask)
            #expect(backedUp.status == 0, "\(backedUp.output)")
            #expect(try Self.mode(backup) == 0o700, "umask \(umask)")
            for name in try FileManager.default.contentsOfDirectory(atPath: backup) {
                #expect(try Self.mode(backup + "/" + name) == 0o600, "umask \(umask): \(name)")
            }
            let exported = root + "/export-\(umask).ndjson"
            let export = try Self.kura(["export", exported, "--data", data], umask: umask)
            #expect(export.status == 0, "\(export.output)")
            #expect(try Self.mode(exported) == 0o600, "umask \(umask)")
        }
        // Nothing else was left beside the copies (no partial directory, no journal).
        let names = try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasPrefix("copy-") }
        #expect(Set(names) == ["copy-022", "copy-000"], "\(names)")
    }

    @Test("kura import refuses a hash whose cost is outside the bounds, and leaves a directory kura serve starts in")
    func importRefusesCostlyHash() throws {
        let root = try TemporaryDirectory("safety").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let file = root + "/app.ndjson"
        let hash = "$argon2id$v=19$m=65536,t=4294967295,p=1$c2FsdHNhbHRzYWx0c2FsdA$" + String(repeating: "A", count: 43)
        try """
        {"kind":"header","format":"kura-export","formatVersion":1,"kura":"0.1.0","engine":"sqlite","time":"2026-01-01T00:00:00.000000Z","documents":0,"accounts":1,"indexes":0,"rules":0}
        {"kind":"account","uid":"u1","email":"ann@example.com","emailVerified":true,"displayName":null,"passwordHash":"\(hash)","disabled":false,"customClaims":{},"createTime":"2026-01-01T00:00:00.000000Z","lastSignInTime":null}

        """.write(toFile: file, atomically: true, encoding: .utf8)
        let target = root + "/target"
        let refused = try Self.kura(["import", file, "--data", target])
        #expect(refused.status == 2, "\(refused.output)")
        #expect(
            refused.output.contains(
                "app.ndjson:2: passwordHash has t=4294967295, outside 1-10 (auth.argon2MaxIterations)"),
            "\(refused.output)")
        #expect(!FileManager.default.fileExists(atPath: target))
        // And a directory the refused import ran on serves.
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        #expect(try Self.kura(["import", file, "--data", target]).status == 2)
        let server = try ServerProcess(dataDirectory: target, logFile: root + "/kura.log")
        server.stop()
    }
}
