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
    private let process: ChildProcess

    /// Starts the sink on `port`, storing mails in `directory`, and waits until it listens. `faults` are played on
    /// the first messages, one each (smtp_sink.py's `--faults`: a reply code, `timeout`, `drop`,
    /// `drop-after-accept`).
    public init(
        port: Int, directory: String, user: String? = nil, password: String? = nil, faults: [String] = []
    ) throws {
        self.port = port
        self.directory = directory
        try? FileManager.default.removeItem(atPath: directory + "/ready")
        var arguments = [TestEnvironment.repositoryRoot + "/Tests/Support/smtp_sink.py", String(port), directory]
        if let user { arguments += ["--user", user, "--password", password ?? ""] }
        if !faults.isEmpty { arguments += ["--faults", faults.joined(separator: ",")] }
        _ = FileManager.default.createFile(atPath: directory + ".log", contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + ".log"))
        defer { try? log.close() }
        let process = try ChildProcess(
            try TestEnvironment.python(), arguments, standardOutput: log, standardError: log)
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
        process.stop()
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
