import Foundation
import KuraCore
import KuraModel

#if canImport(Glibc)
    import Glibc
#endif

/// A real SMTP server for a test: Tests/Support/smtp_sink.py (aiosmtpd) run by the virtualenv's Python.
/// `make deps-test` creates that virtualenv and exports `KURA_TEST_PYTHON`.
final class SMTPSink {
    let port: Int
    let directory: String
    private let process: Process

    /// Starts the sink on `port`, storing mails in `directory`, and waits until it listens.
    init(port: Int, directory: String, user: String? = nil, password: String? = nil) throws {
        self.port = port
        self.directory = directory
        try? FileManager.default.removeItem(atPath: directory + "/ready")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try TestEnvironment.python())
        var arguments = [TestEnvironment.repositoryRoot + "/Tests/Support/smtp_sink.py", String(port), directory]
        if let user { arguments += ["--user", user, "--password", password ?? ""] }
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
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        if !waitUntil(timeout: 5, { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }

    /// The mails received so far, in order, as the sink parsed them (see smtp_sink.py).
    func received() throws -> [JSONObject] {
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

    /// The raw message of mail `number` (1-based).
    func raw(_ number: Int) throws -> String {
        try String(contentsOfFile: "\(directory)/\(number).eml", encoding: .utf8)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

enum TestEnvironment {
    /// The repository checkout, found from this file's path.
    static let repositoryRoot: String = {
        var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(4)  // Tests/KuraMailTests/Support/SMTPSink.swift
        return components.joined(separator: "/")
    }()

    /// `KURA_TEST_PYTHON`, else `.venv-test/bin/python` in the checkout.
    static func python() throws -> String {
        if let path = ProcessInfo.processInfo.environment["KURA_TEST_PYTHON"], !path.isEmpty,
            FileManager.default.isExecutableFile(atPath: path)
        {
            return path
        }
        let venv = repositoryRoot + "/.venv-test/bin/python"
        guard FileManager.default.isExecutableFile(atPath: venv) else {
            throw TestFailure(
                "no Python with aiosmtpd: run `make deps-test` (creates .venv-test) or set KURA_TEST_PYTHON")
        }
        return venv
    }

    /// A new empty directory under the system's temporary directory.
    static func temporaryDirectory() throws -> String {
        var template = Array((NSTemporaryDirectory() + "/kura-mail-XXXXXX").utf8CString)
        guard let path = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw TestFailure("mkdtemp failed")
        }
        return String(cString: path)
    }

    /// A TCP port on 127.0.0.1 that nothing listens on right now (the kernel's pick for port 0).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else { throw TestFailure("bind failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Polls `condition` every 10 ms until it holds or `timeout` seconds pass; returns whether it held.
@discardableResult
func waitUntil(timeout: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while Date() < deadline {
        if try condition() { return true }
        usleep(10_000)
    }
    return try condition()
}
