import Foundation
import KuraTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `kura serve --public` next to its data directory, as the real binary runs it: the data directory is never
/// served, and requests for its databases leave the store intact for `kura admin create-user` run beside it.
@Suite struct HostingCommandLineTests {
    @Test("kura serve --public PROJECT with PROJECT/kura_data: the databases are 404, and the store survives them")
    func nestedDataDirectory() throws {
        let project = try TemporaryDirectory("public-project")
        defer { project.remove() }
        try "<!doctype html><title>app</title>".write(
            toFile: project.file("index.html"), atomically: true, encoding: .utf8)
        let data = project.file("kura_data")
        let server = try ServerProcess(
            dataDirectory: data, logFile: project.file("kura.log"), arguments: ["--public", project.path])
        defer { server.stop() }
        let key = try String(contentsOfFile: data + "/admin.key", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let admin = [("Authorization", "Bearer \(key)")]
        let signUp = try HTTPClient.send(
            port: server.port, "POST", "/api/auth/signup",
            body: JSON.encode(["email": "ann@example.com", "password": "secret-pw"]))
        #expect(signUp.status == 201, "\(signUp)")
        let token = try #require(signUp.json["idToken"] as? String)
        #expect(
            try HTTPClient.send(
                port: server.port, "PUT", "/api/docs/notes/a", headers: admin, body: JSON.encode(["data": ["n": 1]])
            ).status == 200)

        for name in [
            "admin.key", "auth-signing-keys.json", "accounts.db", "accounts.db-wal", "accounts.db-shm", "documents.db",
            "documents.db-wal", "documents.db-shm", "mail.db", "kura.rules", "kura.lock",
        ] {
            let response = try HTTPClient.get(port: server.port, "/kura_data/" + name)
            #expect(response.status == 404, "/kura_data/\(name): \(response.status)")
        }
        #expect(try HTTPClient.get(port: server.port, "/").status == 200)

        let created = try CommandLineTests.kura([
            "admin", "create-user", "--email", "bob@example.com", "--data", data,
        ])
        #expect(created.status == 0, "\(created.output)")
        #expect(FileManager.default.fileExists(atPath: data + "/accounts.db-wal"))
        let me = try HTTPClient.send(
            port: server.port, "GET", "/api/auth/me", headers: [("Authorization", "Bearer \(token)")])
        #expect(me.status == 200, "\(me)")
        let write = try HTTPClient.send(
            port: server.port, "PUT", "/api/docs/notes/b", headers: admin, body: JSON.encode(["data": ["n": 2]]))
        #expect(write.status == 200, "\(write)")
        // Writes to the account database after the command: they failed with SQLite's disk I/O error once its WAL
        // had been deleted from under the server.
        let another = try HTTPClient.send(
            port: server.port, "POST", "/api/auth/signup",
            body: JSON.encode(["email": "cy@example.com", "password": "secret-pw"]))
        #expect(another.status == 201, "\(another)")
        let signIn = try HTTPClient.send(
            port: server.port, "POST", "/api/auth/signin",
            body: JSON.encode(["email": "ann@example.com", "password": "secret-pw"]))
        #expect(signIn.status == 200, "\(signIn)")
        let users = try HTTPClient.send(port: server.port, "GET", "/api/admin/users", headers: admin)
        #expect(users.status == 200, "\(users)")
        #expect(users.body.contains("bob@example.com"))
    }

    @Test("kura serve --public DATA --data DATA exits at once with a sentence, and creates nothing")
    func publicIsData() throws {
        let project = try TemporaryDirectory("public-data")
        defer { project.remove() }
        let data = project.file("kura_data")
        try FileManager.default.createDirectory(atPath: data + "/site", withIntermediateDirectories: true)
        for root in [data, data + "/site"] {
            let pipe = try CloseOnExecPipe()  // see CloseOnExecPipe: no other child may hold its write end
            let process = try ChildProcess(
                KuraBinary.url.path, ["serve", "--port", "0", "--data", data, "--public", root],
                standardOutput: pipe.writing, standardError: pipe.writing)
            try pipe.writing.close()
            guard let status = process.exitStatus(within: 60) else {
                Issue.record("kura serve --public \(root) --data \(data) kept running")
                continue
            }
            let output = String(decoding: pipe.reading.readDataToEndOfFile(), as: UTF8.self)
            #expect(status != 0)
            #expect(output.contains("data directory"), "\(output)")
            #expect(output.contains("--public DIR"), "\(output)")
        }
        #expect(!FileManager.default.fileExists(atPath: data + "/admin.key"))
    }
}
