import Foundation
import KuraTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The `kura` commands other than `serve`, run as a user runs them, next to a live server.
@Suite struct CommandLineTests {
    /// Runs `kura ARGUMENTS`, with `environment` over this process's; returns the exit status and what it printed.
    static func kura(
        _ arguments: [String], environment: [String: String] = [:], in directory: String? = nil, input: String? = nil
    ) throws -> (status: Int32, output: String) {
        try runToEnd(KuraBinary.url, arguments, environment: environment, in: directory, input: input)
    }

    @Test("kura backup refuses a data directory with nothing stored, and an unknown engine by name")
    func backupRefusals() throws {
        // Backing up under load and restoring: BackupRestoreTests.
        let root = try TemporaryDirectory("cli").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let empty = try Self.kura(["backup", root + "/x", "--data", root + "/nothing-here"])
        #expect(empty.status == 2 && empty.output.contains("nothing to back up"), "\(empty.output)")
        #expect(!FileManager.default.fileExists(atPath: root + "/x"))
        // The backup goes through the engine `store.engine` names; an unknown one is refused by name.
        let unknown = try Self.kura([
            "backup", root + "/y", "--data", root + "/data", "--set", "store.engine=mongodb",
        ])
        #expect(unknown.status != 0)
        #expect(
            unknown.output.contains("store.engine: unknown engine 'mongodb'; the engines are: sqlite, postgres"),
            "\(unknown)")
        #expect(!FileManager.default.fileExists(atPath: root + "/y"))
    }

    @Test("kura admin create-user makes an account that signs in and carries the admin claim")
    func createAdmin() throws {
        let root = try TemporaryDirectory("cli").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let data = root + "/data"
        let created = try Self.kura(["admin", "create-user", "--email", "Ops@Example.com", "--admin", "--data", data])
        #expect(created.status == 0, "\(created.output)")
        let password = try #require(created.output.components(separatedBy: "password: ").last)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try Self.kura(["admin", "create-user", "--email", "ops@example.com", "--data", data]).status != 0)
        let server = try ServerProcess(dataDirectory: data, logFile: root + "/kura.log")
        defer { server.stop() }
        let signIn = try HTTPClient.send(
            port: server.port, "POST", "/api/auth/signin",
            body: JSON.encode(["email": "ops@example.com", "password": password]))
        #expect(signIn.status == 200)
        let token = try #require(signIn.json["idToken"] as? String)
        let users = try HTTPClient.send(
            port: server.port, "GET", "/api/admin/users", headers: [("Authorization", "Bearer \(token)")])
        #expect(users.status == 200, "an admin-claim token must reach the admin API")

        // --password-stdin: the password comes from standard input, not the process list.
        let piped = try Self.kura(
            ["admin", "create-user", "--email", "piped@example.com", "--password-stdin", "--data", data],
            input: "from-stdin-pw\n")
        #expect(piped.status == 0, "\(piped.output)")
        #expect(!piped.output.contains("password:"), "a given password is not printed")
        let pipedSignIn = try HTTPClient.send(
            port: server.port, "POST", "/api/auth/signin",
            body: JSON.encode(["email": "piped@example.com", "password": "from-stdin-pw"]))
        #expect(pipedSignIn.status == 200)
        let empty = try Self.kura(
            ["admin", "create-user", "--email", "none@example.com", "--password-stdin", "--data", data], input: "")
        #expect(empty.status != 0)
        #expect(empty.output.contains("standard input held no password"), "\(empty.output)")
    }

    @Test("SIGTERM stops kura serve cleanly, even when the parent blocked the signal")
    func sigtermStops() throws {
        let root = try TemporaryDirectory("cli").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try ServerProcess(dataDirectory: root + "/data", logFile: root + "/kura.log")
        // Exit status 0 is the path through graceful shutdown; a signal death or a hang would fail here.
        #expect(server.terminate() == 0)
    }

    @Test(
        "kura rules test passes the shipped table, fails a wrong expectation, and reports rule errors with a position")
    func rulesTest() throws {
        let root = try TemporaryDirectory("cli").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../docs/examples").standardized.path
        let shipped = try Self.kura(["rules", "test", examples + "/default-rules-tests.json"])
        #expect(shipped.status == 0, "\(shipped.output)")
        #expect(shipped.output.contains("12 passed, 0 failed"))

        let wrong = root + "/wrong.json"
        try """
        {"rules": "\(examples)/default.rules", "cases": [
          {"name": "a stranger reads alice", "auth": {"uid": "bob"}, "method": "get", "path": "/users/alice",
           "expect": "allow"}]}
        """.write(toFile: wrong, atomically: true, encoding: .utf8)
        let failing = try Self.kura(["rules", "test", wrong])
        #expect(failing.status == 1)
        #expect(failing.output.contains("FAIL a stranger reads alice: expected allow, got deny"), "\(failing.output)")

        let broken = root + "/broken.rules"
        try "rules_version = '1';\nmatch /a/{x} {\n  allow read: if ;\n}\n".write(
            toFile: broken, atomically: true, encoding: .utf8)
        let refused = try Self.kura(["rules", "test", wrong, "--rules", broken])
        #expect(refused.status != 0)
        #expect(refused.output.contains("broken.rules:3:"), "\(refused.output)")

        // A table named without a directory finds its relative rules file beside it, in the current directory.
        try FileManager.default.copyItem(atPath: examples + "/default.rules", toPath: root + "/mine.rules")
        try """
        {"rules": "mine.rules", "cases": [
          {"name": "alice reads alice", "auth": {"uid": "alice"}, "method": "get", "path": "/users/alice",
           "expect": "allow"}]}
        """.write(toFile: root + "/local.json", atomically: true, encoding: .utf8)
        let local = try Self.kura(["rules", "test", "local.json"], in: root)
        #expect(local.status == 0, "\(local.output)")
        #expect(local.output.contains("1 passed, 0 failed"), "\(local.output)")
    }

    @Test("kura admin rotate-keys: the new key signs after a restart, tokens signed before still verify")
    func rotateKeys() throws {
        let root = try TemporaryDirectory("cli").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let data = root + "/data"
        let first = try ServerProcess(dataDirectory: data, logFile: root + "/kura.log")
        let signUp = try HTTPClient.send(
            port: first.port, "POST", "/api/auth/signup",
            body: JSON.encode(["email": "keys@example.com", "password": "secret-pw"]))
        #expect(signUp.status == 201)
        let oldToken = try #require(signUp.json["idToken"] as? String)
        first.stop()

        let rotated = try Self.kura(["admin", "rotate-keys", "--data", data])
        #expect(rotated.status == 0, "\(rotated.output)")
        let second = try ServerProcess(dataDirectory: data, logFile: root + "/kura.log")
        defer { second.stop() }
        let keys = try HTTPClient.send(port: second.port, "GET", "/api/auth/keys")
        #expect((keys.json["keys"] as? [Any])?.count == 2)
        let me = try HTTPClient.send(
            port: second.port, "GET", "/api/auth/me", headers: [("Authorization", "Bearer \(oldToken)")])
        #expect(me.status == 200, "a token signed with the retired key must still verify")
        let signIn = try HTTPClient.send(
            port: second.port, "POST", "/api/auth/signin",
            body: JSON.encode(["email": "keys@example.com", "password": "secret-pw"]))
        let newToken = try #require(signIn.json["idToken"] as? String)
        let header = try #require(Data(base64Encoded: Self.padded(String(newToken.prefix { $0 != "." }))))
        let kid = try #require((try JSONSerialization.jsonObject(with: header) as? [String: Any])?["kid"] as? String)
        #expect(rotated.output.contains(kid), "new tokens are signed with the rotated key")
    }

    /// base64url → base64 with padding, for Foundation's decoder.
    static func padded(_ text: String) -> String {
        var out = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while out.count % 4 != 0 { out += "=" }
        return out
    }
}
