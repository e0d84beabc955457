import Foundation
import KuraAuth
import KuraCore
import KuraModel
import KuraServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The only file of this target that sees the server's modules: `Kura` and `KuraError` elsewhere in the tests are
// the client's.

/// A Kura server in this process on a free port, with cheap password hashing and no rate limits. `stop()` and
/// `restart()` keep the data directory (and the port), for offline tests; `shutdown()` removes it.
final class TestServer: @unchecked Sendable {
    let dataDirectory: String
    private(set) var port: Int
    private var server: KuraNode?
    private let configure: @Sendable (inout KuraConfiguration) -> Void
    private let lock = NSLock()

    /// `idTokenLifetime` shortens ID tokens (seconds) for refresh tests; `rules` replaces the default security
    /// rules (the text of `kura.rules`).
    init(
        idTokenLifetime: Int64? = nil, rules: String? = nil,
        configure: @escaping @Sendable (inout KuraConfiguration) -> Void = { _ in }
    ) throws {
        dataDirectory = NSTemporaryDirectory() + "kura-client-" + UUID().uuidString
        if let rules {
            try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
            try rules.write(toFile: dataDirectory + "/kura.rules", atomically: true, encoding: .utf8)
        }
        self.configure = { configuration in
            configuration.auth = .lowCostForTesting
            configuration.auth.rateLimits.enabled = false
            if let idTokenLifetime { configuration.auth.idTokenLifetime = idTokenLifetime }
            configure(&configuration)
        }
        port = 0
        try start()
    }

    /// The base URL clients use.
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    var adminKey: String {
        (try? String(contentsOfFile: dataDirectory + "/admin.key", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }

    /// Starts serving on `port` (0 the first time: any free port, kept for restarts).
    func start() throws {
        var configuration = KuraConfiguration()
        configuration.dataDirectory = dataDirectory
        configuration.http.port = port
        configuration.http.eventLoops = 1
        configuration.http.workerThreads = 4
        configuration.logLevel = .error
        configure(&configuration)
        let server = try KuraNode(configuration: configuration, logger: Logger(level: .error))
        try server.start()
        lock.withLock {
            self.server = server
            port = server.port
        }
    }

    /// Open listen streams on the server.
    var listenConnections: Int { lock.withLock { server?.realtime.connectionCount ?? 0 } }

    /// Stops serving (connections are closed); the data stays.
    func stop() {
        let server = lock.withLock { () -> KuraNode? in
            defer { self.server = nil }
            return self.server
        }
        server?.stop()
    }

    /// Stops and removes the data directory.
    func shutdown() {
        stop()
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    /// An admin-key request, for setting up and checking what the SDK did: the parsed JSON body (`nil` if empty)
    /// and the status.
    func admin(_ method: String, _ path: String, json: Any? = nil) async throws -> (status: Int, body: Any?) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.setValue("Bearer \(adminKey)", forHTTPHeaderField: "Authorization")
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, data.isEmpty ? nil : try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
    }

    /// The `data` of the document at `path` as the server has it (admin read), or `nil` when it does not exist.
    func document(_ path: String) async throws -> [String: Any]? {
        let (status, body) = try await admin("GET", "/api/docs/\(path)")
        guard status == 200 else { return nil }
        return (body as? [String: Any])?["data"] as? [String: Any]
    }

    /// The full document JSON (with `version`) at `path`, or `nil`.
    func documentJSON(_ path: String) async throws -> [String: Any]? {
        let (status, body) = try await admin("GET", "/api/docs/\(path)")
        return status == 200 ? body as? [String: Any] : nil
    }

    /// The held mails to `address` (newest first): `subject` and `actionLink` of each.
    func mails(to address: String) async throws -> [[String: Any]] {
        let (_, body) = try await admin("GET", "/api/admin/outbox")
        let mails = (body as? [String: Any])?["mails"] as? [[String: Any]] ?? []
        return mails.filter { $0["to"] as? String == address }
    }

    /// The action code of the newest held mail to `address` with link mode `mode` (`verifyEmail`,
    /// `resetPassword`), waiting up to 5 s for it: mails asked for by address are written after the answer.
    func actionCode(to address: String, mode: String) async throws -> String? {
        for _ in 0..<50 {
            let (_, body) = try await admin("GET", "/api/admin/outbox")
            let mails = (body as? [String: Any])?["mails"] as? [[String: Any]] ?? []
            for mail in mails where mail["to"] as? String == address {
                guard let link = mail["actionLink"] as? String, link.contains("mode=\(mode)") else { continue }
                return URLComponents(string: link)?.queryItems?.first { $0.name == "code" }?.value
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }
}

/// Runs `body` against a fresh server and removes it afterwards.
func withServer<T>(
    idTokenLifetime: Int64? = nil, rules: String? = nil,
    configure: @escaping @Sendable (inout KuraConfiguration) -> Void = { _ in },
    _ body: (TestServer) async throws -> T
) async throws -> T {
    let server = try TestServer(idTokenLifetime: idTokenLifetime, rules: rules, configure: configure)
    defer { server.shutdown() }
    return try await body(server)
}

/// A failure of a test's own expectations that is not an `#expect`.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
