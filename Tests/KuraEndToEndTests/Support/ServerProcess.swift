import Foundation
import KuraTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A `kura serve` child process on a free port, ready once `/api/health` answers.
final class ServerProcess {
    let process: ChildProcess
    let port: Int

    /// `arguments` go after `serve` and the port, data and log-level flags; `environment` over this process's.
    /// `healthTimeout`: how long to wait for the first answer (a restart after a crash may recover a journal).
    ///
    /// The port is one the kernel had free a moment before; another socket can take it before `kura` binds it
    /// (a test's server on port 0, or a client's outgoing connection, whose local port comes from the same range).
    /// A `kura` that exits saying that port is in use is started again on another one, up to five times.
    init(
        dataDirectory: String, logFile: String, arguments: [String] = [], environment: [String: String] = [:],
        healthTimeout: Duration = .seconds(15)
    ) throws {
        // A new log for each server (a retry appends to it).
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        var attempt = 1
        while true {
            let port = try TestEnvironment.freePort()
            let start = Self.logSize(logFile)
            let process = try Self.launch(
                port: port, dataDirectory: dataDirectory, logFile: logFile, arguments: arguments,
                environment: environment)
            do {
                try Self.waitUntilHealthy(process, port: port, timeout: healthTimeout)
                (self.process, self.port) = (process, port)
                return
            } catch {
                process.send(SIGKILL)
                process.waitUntilExit()
                let log = Self.logText(logFile, from: start)
                let taken = log.contains("port \(port) is already in use") || log.contains("EADDRINUSE")
                guard taken && attempt < 5 else { throw error }
                attempt += 1
            }
        }
    }

    private static func launch(
        port: Int, dataDirectory: String, logFile: String, arguments: [String], environment: [String: String]
    ) throws -> ChildProcess {
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        defer { try? log.close() }
        log.seekToEndOfFile()
        return try ChildProcess(
            KuraBinary.url.path,
            ["serve", "--port", "\(port)", "--data", dataDirectory, "--log-level", "warn"] + arguments,
            environment: environment, standardOutput: log, standardError: log)
    }

    private static func logSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// What the log file holds past byte `offset`.
    private static func logText(_ path: String, from offset: Int) -> String {
        guard let data = FileManager.default.contents(atPath: path), data.count > offset else { return "" }
        return String(decoding: data.dropFirst(offset), as: UTF8.self)
    }

    /// Polls `GET /api/health` until it answers 200 (or the process dies, or `timeout` passes).
    private static func waitUntilHealthy(_ process: ChildProcess, port: Int, timeout: Duration) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw TestFailure("kura exited with \(process.waitUntilExit())") }
            if let response = try? HTTPClient.get(port: port, "/api/health"), response.status == 200 { return }
            usleep(5_000)
        }
        throw TestFailure("kura did not answer /api/health on port \(port)")
    }

    func kill9() {
        process.send(SIGKILL)
        process.waitUntilExit()
    }

    /// Stops the server at the end of a test (SIGKILL: the data is thrown away anyway).
    func stop() {
        if process.isRunning { kill9() }
    }

    /// SIGTERM, as an init system stops it; returns the exit status.
    func terminate() -> Int32 {
        process.terminate()
        return process.waitUntilExit()
    }
}
