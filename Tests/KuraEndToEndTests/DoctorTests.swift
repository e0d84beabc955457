import Foundation
import KuraTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `kura doctor`, run as a user runs it: one line per check, and the exit code by the worst one.
@Suite struct DoctorTests {
    /// A data directory with a few hundred documents (several database pages), its server stopped cleanly.
    static func healthyDirectory(_ root: String) throws -> String {
        let data = root + "/data"
        let server = try ServerProcess(dataDirectory: data, logFile: root + "/kura.log")
        let key = try String(contentsOfFile: data + "/admin.key", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        for n in 0..<200 {
            let put = try HTTPClient.send(
                port: server.port, "PUT", "/api/docs/notes/n\(n)", headers: [("Authorization", "Bearer \(key)")],
                body: JSON.encode(["data": ["n": n, "text": String(repeating: "kura ", count: 40)]]))
            #expect(put.status == 200)
        }
        #expect(server.terminate() == 0)
        return data
    }

    /// `kura doctor --json ARGUMENTS`: the exit status and the checks as (check, status, message, fix).
    static func doctor(_ arguments: [String]) throws -> (status: Int32, checks: [[String: Any]], output: String) {
        let (status, output) = try CommandLineTests.kura(["doctor", "--json"] + arguments)
        let line = output.split(separator: "\n").last.map(String.init) ?? ""
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return (status, object?["checks"] as? [[String: Any]] ?? [], output)
    }

    static func findings(_ checks: [[String: Any]], _ check: String, _ status: String) -> [String] {
        checks.filter { $0["check"] as? String == check && $0["status"] as? String == status }
            .compactMap { $0["message"] as? String }
    }

    @Test("a healthy data directory: every check OK, exit 0, with or without a server running")
    func healthy() throws {
        let root = try TemporaryDirectory("doctor").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let data = try Self.healthyDirectory(root)
        let (status, output) = try CommandLineTests.kura(["doctor", "--data", data])
        #expect(status == 0, "\(output)")
        for check in [
            "directory", "permissions", "server", "integrity", "indexes", "outbox", "clock", "rules", "smtp", "disk",
        ] {
            #expect(output.contains("\nOK   \(check)") || output.hasPrefix("OK   \(check)"), "\(check): \(output)")
        }
        #expect(output.contains("documents.db: quick_check ok") && output.contains("accounts.db: quick_check ok"))
        #expect(output.hasSuffix("checks OK\n"), "\(output)")
        let full = try CommandLineTests.kura(["doctor", "--full", "--data", data])
        #expect(full.status == 0 && full.output.contains("documents.db: integrity_check ok"), "\(full.output)")
        let server = try ServerProcess(dataDirectory: data, logFile: root + "/again.log")
        defer { server.stop() }
        let beside = try Self.doctor(["--data", data])
        #expect(beside.status == 0, "\(beside.output)")
        #expect(
            Self.findings(beside.checks, "server", "ok").first?.contains(
                "process \(server.process.processIdentifier)") == true, "\(beside.output)")
    }

    @Test("a key file readable by every user warns, names the file and says chmod 600; exit 1")
    func worldReadable() throws {
        let root = try TemporaryDirectory("doctor").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let data = try Self.healthyDirectory(root)
        chmod(data + "/admin.key", 0o644)
        let result = try Self.doctor(["--data", data])
        #expect(result.status == 1, "\(result.output)")
        let warning = try #require(result.checks.first { $0["check"] as? String == "permissions" })
        #expect(warning["status"] as? String == "warn")
        #expect(warning["message"] as? String == "admin.key is mode 644: readable by every user")
        #expect(warning["fix"] as? String == "chmod 600 \(data)/admin.key")
        // An open directory warns too.
        chmod(data, 0o755)
        #expect(!Self.findings(try Self.doctor(["--data", data]).checks, "directory", "warn").isEmpty)
    }

    @Test("a rules file that does not compile fails with its line and column; exit 2")
    func brokenRules() throws {
        let root = try TemporaryDirectory("doctor").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let data = try Self.healthyDirectory(root)
        try "rules_version = '2';\nmatch /notes/{id} {\n  allow read: if ;\n}\n".write(
            toFile: data + "/kura.rules", atomically: true, encoding: .utf8)
        let result = try Self.doctor(["--data", data])
        #expect(result.status == 2, "\(result.output)")
        let failure = try #require(Self.findings(result.checks, "rules", "fail").first, "\(result.output)")
        #expect(failure.hasPrefix("\(data)/kura.rules:3:"), "\(failure)")
        // The plain report says what to fix under the line.
        let plain = try CommandLineTests.kura(["doctor", "--data", data])
        #expect(plain.status == 2)
        #expect(
            plain.output.contains("FAIL rules") && plain.output.contains("     fix: correct kura.rules"), "\(plain)")
    }

    @Test("a database with pages overwritten in the middle fails the integrity check; exit 2")
    func corruptedDatabase() throws {
        let root = try TemporaryDirectory("doctor").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let data = try Self.healthyDirectory(root)
        // A copy (kura backup: complete database files, no write-ahead log that would mask the damage), damaged:
        // two pages in the middle of documents.db overwritten.
        let copy = root + "/copy"
        let backup = try CommandLineTests.kura(["backup", copy, "--data", data])
        #expect(backup.status == 0, "\(backup.output)")
        #expect(try Self.doctor(["--data", copy]).status == 0)
        let file = copy + "/documents.db"
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        #expect(size >= 16 * 4096, "the database must have pages to damage (\(size) bytes)")
        let handle = try #require(FileHandle(forUpdatingAtPath: file))
        try handle.seek(toOffset: UInt64(size / 2 / 4096 * 4096))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 2 * 4096))
        try handle.close()
        let result = try Self.doctor(["--data", copy])
        #expect(result.status == 2, "\(result.output)")
        let integrity = result.checks.filter { $0["check"] as? String == "integrity" }
        let failure = try #require(integrity.first { $0["status"] as? String == "fail" }, "\(result.output)")
        #expect((failure["message"] as? String)?.hasPrefix("documents.db ") == true, "\(failure)")
        #expect((failure["fix"] as? String)?.contains("restore the last backup") == true)
        #expect(try Self.doctor(["--data", copy, "--full"]).status == 2)
        // The original is untouched and healthy.
        #expect(try Self.doctor(["--data", data]).status == 0)
    }

    @Test("SMTP: a relay that answers is OK, a port nothing listens on fails; exit 2")
    func smtp() throws {
        let root = try TemporaryDirectory("doctor").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let data = try Self.healthyDirectory(root)
        let closed = try TestEnvironment.freePort()
        let result = try Self.doctor(["--data", data, "--set", "smtp.url=smtp://127.0.0.1:\(closed)"])
        #expect(result.status == 2, "\(result.output)")
        let failure = try #require(Self.findings(result.checks, "smtp", "fail").first, "\(result.output)")
        #expect(failure.hasPrefix("smtp://127.0.0.1:\(closed): "), "\(failure)")
        let sink = try SMTPSink(port: try TestEnvironment.freePort(), directory: root + "/mails")
        defer { sink.stop() }
        let answered = try Self.doctor(["--data", data, "--set", "smtp.url=smtp://127.0.0.1:\(sink.port)"])
        #expect(answered.status == 0, "\(answered.output)")
        #expect(!Self.findings(answered.checks, "smtp", "ok").isEmpty)
        #expect(try sink.received().isEmpty, "the check sends no mail")
    }

    @Test("a data directory that does not exist fails; a usage error exits 2")
    func missingDirectory() throws {
        let root = try TemporaryDirectory("doctor").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let result = try Self.doctor(["--data", root + "/nothing"])
        #expect(result.status == 2)
        #expect(Self.findings(result.checks, "directory", "fail") == ["\(root)/nothing does not exist"])
        #expect(try CommandLineTests.kura(["doctor", "extra"]).status == 2)
    }
}
