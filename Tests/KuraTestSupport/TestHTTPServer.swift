import Foundation
import KuraCore
import KuraHTTP
import Synchronization

/// A bare `HTTPServer` (the engine and a router, no Kura node) on 127.0.0.1 with a free port, for one test of
/// KuraHTTP over real sockets. Use `withTestHTTPServer`, which tears it down.
public final class TestHTTPServer: Sendable {
    public let server: HTTPServer
    private let stopped = Mutex(false)

    public var port: Int { server.port }

    /// Starts a server answering `GET /api/health` and whatever `routes` registers.
    public init(configuration: HTTPServerConfiguration, routes: (Router<BasicRequestContext>) -> Void) throws {
        let router = Router<BasicRequestContext>()
        router.get("/api/health") { _, _ in .json(Array(#"{"status":"ok"}"#.utf8)) }
        routes(router)
        // Errors only: the access log of hundreds of test requests would bury the test output.
        server = HTTPServer(configuration: configuration, responder: router, logger: Logger(level: .error))
        try server.start()
    }

    /// Graceful shutdown, then joins the loop threads. Safe to call more than once.
    public func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        server.shutdown()
        server.wait()
    }

    /// A new raw connection to the server; reads wait `timeout` unless told otherwise.
    public func connect(timeout: Duration = .seconds(3)) throws -> HTTPConnection {
        try HTTPConnection(port: port, timeout: timeout)
    }

    /// Sends `raw` on a new connection and reads one response.
    public func exchange(_ raw: String, head: Bool = false) throws -> HTTPResponse {
        let client = try connect()
        try client.send(raw)
        return try client.readResponse(head: head)
    }

    /// `GET path` on a new connection.
    public func get(_ path: String, headers: String = "") throws -> HTTPResponse {
        try exchange("GET \(path) HTTP/1.1\r\nHost: test\r\n\(headers)\r\n")
    }

    /// Whether a brand-new client still gets `200` from `/api/health`.
    public func stillServes() -> Bool { (try? get("/api/health").status) == 200 }

    /// The configuration tests start from: ephemeral port, two loops (this machine's core count), short grace.
    public static func configuration(
        _ adjust: (inout HTTPServerConfiguration) -> Void = { _ in }
    ) -> HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.eventLoops = 2
        // libuv's pool is per process and sized by the first WorkerPool made; tests in parallel each block a few
        // pool threads, so ask for enough that they do not queue behind one another.
        configuration.workerThreads = 16
        configuration.shutdownGraceMs = 3000
        adjust(&configuration)
        return configuration
    }
}

/// Runs `body` against a fresh server with `routes` (plus `GET /api/health`), stopping it afterwards.
public func withTestHTTPServer<T>(
    _ adjust: (inout HTTPServerConfiguration) -> Void = { _ in },
    routes: (Router<BasicRequestContext>) -> Void = { _ in },
    _ body: (TestHTTPServer) throws -> T
) throws -> T {
    let server = try TestHTTPServer(configuration: TestHTTPServer.configuration(adjust), routes: routes)
    defer { server.stop() }
    return try body(server)
}

/// A flag one thread raises and another waits for.
public final class Signal: Sendable {
    private let raised = Atomic(false)
    public init() {}
    public func raise() { raised.store(true, ordering: .releasing) }
    public var isRaised: Bool { raised.load(ordering: .acquiring) }
    public func wait(timeout: Double = 3) -> Bool { waitUntil(timeout: timeout) { isRaised } }
}
