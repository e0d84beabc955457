import Foundation
import KuraCore
import KuraModel

#if canImport(Glibc)
    import Glibc
#endif

/// A real SMTP server for a test: Tests/Support/smtp_sink.py (aiosmtpd) run by the virtualenv's Python.
/// `make deps-test` creates that virtualenv and exports `KURA_TEST_PYTHON`.
public final class SMTPSink {
    public let port: Int
    public let directory: String
    private let process: Process

    /// Starts the sink on `port`, storing mails in `directory`, and waits until it listens. `faults` are played on
    /// the first messages, one each (smtp_sink.py's `--faults`: a reply code, `timeout`, `drop`,
    /// `drop-after-accept`).
    public init(
        port: Int, directory: String, user: String? = nil, password: String? = nil, faults: [String] = []
    ) throws {
        self.port = port
        self.directory = directory
        try? FileManager.default.removeItem(atPath: directory + "/ready")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try TestEnvironment.python())
        var arguments = [TestEnvironment.repositoryRoot + "/Tests/Support/smtp_sink.py", String(port), directory]
        if let user { arguments += ["--user", user, "--password", password ?? ""] }
        if !faults.isEmpty { arguments += ["--faults", faults.joined(separator: ",")] }
        process.arguments = arguments
        _ = FileManager.default.createFile(atPath: directory + ".log", contents: nil)
        let log = FileHandle(forWritingAtPath: directory + ".log")
        process.standardOutput = log
        process.standardError = log
        try process.run()
        self.process = process
        let ready = waitUntil(timeout: 15) { FileManager.default.fileExists(atPath: directory + "/ready") }
        if !ready {
            stop()
            let output = (try? String(contentsOfFile: directory + ".log", encoding: .utf8)) ?? ""
            throw TestFailure("the SMTP sink did not start on port \(port): \(output)")
        }
    }

    /// Stops the server (its own process only) and waits for it to exit.
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        if !waitUntil(timeout: 5, { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
        // Foundation reaps the child when it notices SIGCHLD, and has been seen to miss it once (the sink was left a
        // zombie and `waitUntilExit` never returned, hanging the test run): wait a bounded time, then reap it here.
        if !waitUntil(timeout: 5, { !process.isRunning }) {
            var status: Int32 = 0
            _ = waitpid(process.processIdentifier, &status, 0)
        }
    }

    deinit { stop() }

    /// The mails received so far, in order, as the sink parsed them (see smtp_sink.py).
    public func received() throws -> [JSONObject] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let numbers = names.compactMap { name in
            name.hasSuffix(".json") ? Int(name.dropLast(5)) : nil
        }.sorted()
        return try numbers.map { number in
            let data = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(number).json"))
            guard let object = try JSONValue.parse(Array(data)).objectValue else { throw TestFailure("not an object") }
            return object
        }
    }

    /// How many of the faults given at start have been played.
    public var faultsUsed: Int {
        (try? String(contentsOfFile: directory + "/faults-used", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
    }

    /// The raw message of mail `number` (1-based).
    public func raw(_ number: Int) throws -> String {
        try String(contentsOfFile: "\(directory)/\(number).eml", encoding: .utf8)
    }
}
