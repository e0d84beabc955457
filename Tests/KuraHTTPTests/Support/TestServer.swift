import Foundation
import KuraCore
import KuraHTTP
import KuraModel
import Synchronization

/// An `HTTPServer` on 127.0.0.1 with a free port, for one test. Use `withTestServer`, which tears it down.
final class TestServer: Sendable {
    let server: HTTPServer
    private let stopped = Mutex(false)

    var port: Int { server.port }

    init(configuration: HTTPServerConfiguration, routes: (Router<BasicRequestContext>) -> Void) throws {
        let router = Router<BasicRequestContext>()
        router.get("/api/health") { _, _ in .json(Array(#"{"status":"ok"}"#.utf8)) }
        routes(router)
        // Errors only: the access log of hundreds of test requests would bury the test output.
        server = HTTPServer(configuration: configuration, responder: router, logger: Logger(level: .error))
        try server.start()
    }

    /// Graceful shutdown, then joins the loop threads. Safe to call more than once.
    func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        server.shutdown()
        server.wait()
    }

    /// A new raw connection to the server.
    func connect() throws -> RawClient { try RawClient(port: port) }

    /// Sends `raw` on a new connection and reads one response.
    func exchange(_ raw: String, head: Bool = false) throws -> RawResponse {
        let client = try connect()
        try client.send(raw)
        return try client.readResponse(head: head)
    }

    /// `GET path` on a new connection.
    func get(_ path: String, headers: String = "") throws -> RawResponse {
        try exchange("GET \(path) HTTP/1.1\r\nHost: test\r\n\(headers)\r\n")
    }

    /// Whether a brand-new client still gets `200` from `/api/health`.
    func stillServes() -> Bool { (try? get("/api/health").status) == 200 }
}

/// The configuration tests start from: ephemeral port, two loops (this machine's core count), short grace.
func testConfiguration(_ adjust: (inout HTTPServerConfiguration) -> Void = { _ in }) -> HTTPServerConfiguration {
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

/// Runs `body` against a fresh server with `routes` (plus `GET /api/health`), stopping it afterwards.
func withTestServer<T>(
    _ adjust: (inout HTTPServerConfiguration) -> Void = { _ in },
    routes: (Router<BasicRequestContext>) -> Void = { _ in },
    _ body: (TestServer) throws -> T
) throws -> T {
    let server = try TestServer(configuration: testConfiguration(adjust), routes: routes)
    defer { server.stop() }
    return try body(server)
}

/// Reads fields of the JSON error body.
enum JSONBody {
    static func object(_ bytes: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }

    static func errorField(_ name: String, in bytes: [UInt8]) -> String? {
        (object(bytes)?["error"] as? [String: Any])?[name] as? String
    }
}

/// Polls `condition` every few milliseconds until it holds or `timeout` passes; returns whether it held.
func eventually(within timeout: Duration = .seconds(3), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}

/// A flag one thread raises and another waits for.
final class Signal: Sendable {
    private let raised = Atomic(false)
    func raise() { raised.store(true, ordering: .releasing) }
    var isRaised: Bool { raised.load(ordering: .acquiring) }
    func wait(timeout: Duration = .seconds(3)) -> Bool { eventually(within: timeout) { isRaised } }
}
