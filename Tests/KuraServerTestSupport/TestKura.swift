import Foundation
import KuraCore
import KuraModel
import KuraServer
import KuraStore
import KuraTestSupport

/// A `KuraNode` node in this process for one test: port 0, its own data directory under /tmp, one event loop.
/// `stop()` and `start()` keep the data directory and the port (restart and offline tests); `shutdown()` stops it
/// and removes the data. `withTestKura` is the usual way in.
///
/// In `.live` mode (the default) `request` and its helpers go over a socket, as a client's would; in `.router`
/// mode they are handed to the node's router with no socket (`RouterHarness`), so a handler test sees exactly what
/// the handler answered. The node runs the same either way.
public final class TestKura: @unchecked Sendable {
    public let dataDirectory: String
    public let mode: Mode
    private let logger: Logger
    private var configuration: KuraConfiguration
    private var node: KuraNode?
    private var router: RouterHarness?
    private let lock = NSLock()

    /// How `request` reaches the node.
    public enum Mode: Sendable, CaseIterable, CustomStringConvertible {
        /// Over a socket (`HTTPConnection`), as a client would.
        case live
        /// Handed to the node's router with no socket (`RouterHarness`); listen streams still need `.live`.
        case router

        public var description: String { self == .live ? "live" : "router" }
    }

    /// How a request authenticates.
    public enum Auth: Sendable {
        /// `Authorization: Bearer <admin key>`.
        case admin
        /// No `Authorization` header.
        case none
        /// `Authorization: <value>` exactly as given.
        case header(String)
    }

    /// Starts a node. `rules` is written to `<data>/kura.rules` first (the default rules when `nil`); `configure`
    /// adjusts the settings last.
    public init(
        mode: Mode = .live, logger: Logger = Logger(level: .error), rules: String? = nil,
        configure: (inout KuraConfiguration) throws -> Void = { _ in }
    ) throws {
        dataDirectory = TemporaryDirectory.uniquePath("rest")
        self.mode = mode
        self.logger = logger
        var configuration = KuraConfiguration()
        configuration.dataDirectory = dataDirectory
        configuration.http.port = 0
        configuration.http.eventLoops = 1
        do {
            if let rules {
                try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
                try rules.write(toFile: dataDirectory + "/kura.rules", atomically: true, encoding: .utf8)
            }
            try configure(&configuration)
            self.configuration = configuration
            try start()
        } catch {
            try? FileManager.default.removeItem(atPath: dataDirectory)
            throw error
        }
    }

    /// The running node (a precondition: between `stop()` and `start()` there is none).
    public var kura: KuraNode {
        lock.withLock {
            guard let node else { preconditionFailure("the test server is stopped") }
            return node
        }
    }

    /// Whether it serves now (between `stop()` and `start()` it does not).
    public var isRunning: Bool { lock.withLock { node != nil } }

    /// The port it serves on (kept across restarts).
    public var port: Int { lock.withLock { configuration.http.port } }
    /// `http://127.0.0.1:<port>`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// The administrator's key (the running node's, else `<data>/admin.key`).
    public var adminKey: String {
        if let key = lock.withLock({ node?.adminKey.value }) { return key }
        return (try? String(contentsOfFile: dataDirectory + "/admin.key", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }
    public var cache: DocumentCache { kura.store.cache }

    /// Starts serving (again) on the same port with the same data.
    public func start() throws {
        let configuration = lock.withLock { self.configuration }
        let node = try Self.node(configuration, logger)
        try node.start()
        let router = mode == .router ? RouterHarness(server: node.http) : nil
        lock.withLock {
            self.node = node
            self.router = router
            self.configuration.http.port = node.port
        }
    }

    /// A node for `configuration`. A restart in this process can find the data directory's lock still held by this
    /// very process for a moment: a child that another test spawns copies every descriptor between its fork and
    /// its exec, the lock file's too (closed at exec, as it is close-on-exec). Such a refusal is tried again for a
    /// few seconds (up to 10); any other is thrown at once.
    static func node(_ configuration: KuraConfiguration, _ logger: Logger) throws -> KuraNode {
        let ownLock = "is in use by process \(getpid());"
        var attempt = 0
        while true {
            do {
                return try KuraNode(configuration: configuration, logger: logger)
            } catch let error as ConfigurationError where error.message.contains(ownLock) && attempt < 200 {
                attempt += 1
                usleep(50_000)
            }
        }
    }

    /// Stops serving (connections are closed); the data and the port stay for `start()`.
    public func stop() {
        let (node, router) = lock.withLock { () -> (KuraNode?, RouterHarness?) in
            defer {
                self.node = nil
                self.router = nil
            }
            return (self.node, self.router)
        }
        router?.shutdown()
        node?.stop()
    }

    /// Stops and removes the data directory.
    public func shutdown() {
        stop()
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    /// A keep-alive client authenticated as the administrator.
    public func client(source: String? = nil) throws -> APIClient {
        try APIClient(port: port, adminKey: adminKey, source: source)
    }

    /// One request (`.live`: on its own connection); `json` is encoded as the body.
    public func request(
        _ method: String, _ target: String, json: Any? = nil, body: [UInt8]? = nil, headers: [(String, String)] = [],
        auth: Auth = .admin
    ) throws -> HTTPResponse {
        guard let router = lock.withLock({ self.router }) else {
            return try client().request(method, target, json: json, body: body, headers: headers, auth: auth)
        }
        let parts = APIRequest(method, json: json, body: body, headers: headers, auth: auth, adminKey: adminKey)
        return try router.request(method, target, headers: parts.headers, body: parts.body)
    }

    /// `PUT /api/docs/{path}` with `{"data": data}`; requires a 200 and returns the stored document.
    @discardableResult
    public func put(_ path: String, _ data: [String: Any]) throws -> HTTPResponse {
        let response = try request("PUT", "/api/docs/" + path, json: ["data": data])
        guard response.status == 200 else { throw UnexpectedResponse(response) }
        return response
    }

    /// `POST /api/commit` with the given writes; requires a 200.
    @discardableResult
    public func commit(_ writes: [[String: Any]]) throws -> HTTPResponse {
        let response = try request("POST", "/api/commit", json: ["writes": writes])
        guard response.status == 200 else { throw UnexpectedResponse(response) }
        return response
    }

    /// Writes `<data>/kura.rules` in place, as an editor would.
    public func writeRulesFile(_ source: String) throws {
        try source.write(toFile: dataDirectory + "/kura.rules", atomically: false, encoding: .utf8)
    }

    /// Whether the cache holds `path` now, and at which version.
    public func cachedVersion(_ path: String) throws -> Int64? { cache.lookup(try DocumentPath(path))?.version }
}

/// Runs `body` against a fresh server, then stops it and removes its data.
public func withTestKura<T>(
    mode: TestKura.Mode = .live, rules: String? = nil, configure: (inout KuraConfiguration) throws -> Void = { _ in },
    _ body: (TestKura) throws -> T
) throws -> T {
    let server = try TestKura(mode: mode, rules: rules, configure: configure)
    defer { server.shutdown() }
    return try body(server)
}

/// The same for `async` tests; the node starts and stops off the cooperative pool (`offPool`).
public func withTestKura<T>(
    mode: TestKura.Mode = .live, rules: String? = nil,
    configure: @escaping @Sendable (inout KuraConfiguration) throws -> Void = { _ in },
    _ body: (TestKura) async throws -> T
) async throws -> T {
    let server = try await offPool { try TestKura(mode: mode, rules: rules, configure: configure) }
    do {
        let result = try await body(server)
        await server.shutdownOffPool()
        return result
    } catch {
        await server.shutdownOffPool()
        throw error
    }
}

/// A response that a helper did not expect.
public struct UnexpectedResponse: Error, CustomStringConvertible {
    public let response: HTTPResponse
    public init(_ response: HTTPResponse) { self.response = response }
    public var description: String { "unexpected response: \(response)" }
}
