import Foundation
import KuraTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One process owns a data directory and a port: a second `kura serve` started by mistake is refused with a clear
/// message instead of serving the same data with caches of its own, or sharing the port through SO_REUSEPORT.
@Suite struct OwnershipTests {
    /// Runs `kura ARGUMENTS` expecting it to exit on its own; one still running after 10 s is killed and reported
    /// as `nil` (a refused server exits at once; one that was let in keeps serving).
    static func kuraExiting(_ arguments: [String]) throws -> (status: Int32, output: String)? {
        let log = try TemporaryDirectory("cli").path + "/output.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        defer { try? handle.close() }
        let process = try ChildProcess(
            KuraBinary.url.path, arguments, standardOutput: handle, standardError: handle)
        guard let status = process.exitStatus(within: 10) else { return nil }
        return (status, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    @Test("a second kura serve on the same data directory (another port) is refused, naming the owner's PID")
    func sameDataDirectory() throws {
        let root = try TemporaryDirectory("cli").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let data = root + "/data"
        let first = try ServerProcess(dataDirectory: data, logFile: root + "/first.log")
        defer { first.stop() }
        let port = try TestEnvironment.freePort()
        let second = try Self.kuraExiting(["serve", "--port", "\(port)", "--data", data, "--log-level", "warn"])
        let refused = try #require(second, "the second server started on the same data directory")
        #expect(refused.status != 0)
        #expect(
            refused.output.contains("data directory \(data) is in use by process \(first.process.processIdentifier)"),
            "\(refused.output)")
        #expect((try? HTTPClient.get(port: port, "/api/health")) == nil, "nothing may listen on the second port")
        #expect(try HTTPClient.get(port: first.port, "/api/health").status == 200)

        // The one-shot commands run alongside: they go through SQLite and touch nothing the server keeps in memory.
        let created = try CommandLineTests.kura(["admin", "create-user", "--email", "ops@example.com", "--data", data])
        #expect(created.status == 0, "\(created.output)")
        #expect(try CommandLineTests.kura(["backup", root + "/copy", "--data", data]).status == 0)

        // The kernel drops the lock with the process, however it ends: a new server takes the directory over.
        first.kill9()
        let next = try ServerProcess(dataDirectory: data, logFile: root + "/next.log")
        defer { next.stop() }
        #expect(try HTTPClient.get(port: next.port, "/api/health").status == 200)
    }

    @Test("a second kura serve on the same port (another data directory) is refused")
    func samePort() throws {
        let root = try TemporaryDirectory("cli").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let first = try ServerProcess(dataDirectory: root + "/one", logFile: root + "/first.log")
        defer { first.stop() }
        let second = try Self.kuraExiting([
            "serve", "--port", "\(first.port)", "--data", root + "/two", "--log-level", "warn",
        ])
        let refused = try #require(second, "the second server joined the port")
        #expect(refused.status != 0)
        #expect(refused.output.contains("port \(first.port) is already in use"), "\(refused.output)")
        #expect(try HTTPClient.get(port: first.port, "/api/health").status == 200)
    }

    @Test("kura serve refuses a port that another program listens on with SO_REUSEPORT")
    func foreignReusePortListener() throws {
        let root = try TemporaryDirectory("cli").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let port = try TestEnvironment.freePort()
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        try #require(bound && listen(fd, 16) == 0)
        let result = try Self.kuraExiting([
            "serve", "--port", "\(port)", "--data", root + "/data", "--log-level", "warn",
        ])
        let refused = try #require(result, "kura joined a port another program listens on")
        #expect(refused.status != 0)
        #expect(refused.output.contains("port \(port) is already in use"), "\(refused.output)")
    }
}
