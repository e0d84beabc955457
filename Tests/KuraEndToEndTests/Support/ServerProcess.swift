import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A `kura serve` child process on a free port, ready once `/api/health` answers.
final class ServerProcess {
    let process = Process()
    let port: Int

    /// `arguments` go after `serve` and the port, data and log-level flags.
    init(dataDirectory: String, logFile: String, arguments: [String] = []) throws {
        port = try Self.freePort()
        process.executableURL = KuraBinary.url
        process.arguments =
            [
                "serve", "--port", "\(port)", "--data", dataDirectory, "--log-level", "warn",
            ] + arguments
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        try waitUntilHealthy()
    }

    /// A port nothing listens on right now: bind port 0, read what the kernel chose, close.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPClientError("socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw HTTPClientError("bind") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Polls `GET /api/health` until it answers 200 (or the process dies, or 15 s pass).
    private func waitUntilHealthy() throws {
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw EndToEndError("kura exited with \(process.terminationStatus)") }
            if let response = try? HTTPClient.get(port: port, "/api/health"), response.status == 200 { return }
            usleep(5_000)
        }
        throw EndToEndError("kura did not answer /api/health on port \(port)")
    }

    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Stops the server at the end of a test (SIGKILL: the data is thrown away anyway).
    func stop() {
        if process.isRunning { kill9() }
    }

    /// SIGTERM, as an init system stops it; returns the exit status.
    func terminate() -> Int32 {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// A failure of the harness itself.
struct EndToEndError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
