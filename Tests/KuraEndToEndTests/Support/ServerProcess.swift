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
    init(
        dataDirectory: String, logFile: String, arguments: [String] = [], environment: [String: String] = [:],
        healthTimeout: Duration = .seconds(15)
    ) throws {
        port = try TestEnvironment.freePort()
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        defer { try? log.close() }
        log.seekToEndOfFile()
        process = try ChildProcess(
            KuraBinary.url.path,
            ["serve", "--port", "\(port)", "--data", dataDirectory, "--log-level", "warn"] + arguments,
            environment: environment, standardOutput: log, standardError: log)
        do {
            try waitUntilHealthy(timeout: healthTimeout)
        } catch {
            kill9()
            throw error
        }
    }

    /// Polls `GET /api/health` until it answers 200 (or the process dies, or `timeout` passes).
    private func waitUntilHealthy(timeout: Duration) throws {
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
