import KuraCore
import KuraHTTP

/// A router tested with no socket (Hummingbird's `.router` test mode): requests are handed to the router on an
/// event loop of its own (`DirectResponder`), offloaded work runs on a worker pool, and the complete response comes
/// back as an `HTTPResponse`, like one read off the wire by `HTTPConnection` but without parsing or framing.
/// `TestHTTPServer` is the `.live` counterpart. Use `withRouterHarness`, which shuts it down.
public final class RouterHarness: Sendable {
    public let responder: DirectResponder

    /// Runs `responder` (routes registered on a router, say) under `configuration` (CORS, worker pool, verbosity).
    public init(
        configuration: HTTPServerConfiguration = TestHTTPServer.configuration(), responder: any HTTPResponder
    ) {
        self.responder = DirectResponder(
            responder: responder, configuration: configuration, logger: Logger(level: .error))
    }

    /// Runs the responder of `server`, started or not (see `DirectResponder.init(server:)`).
    public init(server: HTTPServer) { responder = DirectResponder(server: server) }

    /// Routes one request and waits for its complete response. The request carries the headers `HTTPConnection`
    /// would send (`Host`, and `Content-Length` when there is a body). A streamed response is not run: it comes back
    /// with its status and headers and an empty body.
    public func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        remoteAddress: String = "127.0.0.1", timeout: Duration = .seconds(10)
    ) throws -> HTTPResponse {
        var fields = [("Host", "test")] + headers
        if let body { fields.append(("Content-Length", String(body.count))) }
        var request = Request(
            method: HTTPMethod(method), target: target, headers: HTTPHeaders(fields), body: body ?? [])
        request.remoteAddress = remoteAddress
        guard let response = responder.respond(to: request, timeout: timeout) else {
            throw TestFailure("no response to \(method) \(target) within \(timeout)")
        }
        return HTTPResponse(response)
    }

    /// `GET target`.
    public func get(_ target: String, headers: [(String, String)] = []) throws -> HTTPResponse {
        try request("GET", target, headers: headers)
    }

    public func shutdown() { responder.shutdown() }
}

/// Runs `body` against a router made by `routes`, with no socket, then shuts it down.
public func withRouterHarness<T>(
    _ adjust: (inout HTTPServerConfiguration) -> Void = { _ in },
    routes: (Router<BasicRequestContext>) -> Void, _ body: (RouterHarness) throws -> T
) throws -> T {
    let router = Router<BasicRequestContext>()
    routes(router)
    let harness = RouterHarness(configuration: TestHTTPServer.configuration(adjust), responder: router)
    defer { harness.shutdown() }
    return try body(harness)
}

extension HTTPResponse {
    /// A handler's response as the client would read it (status, headers, body), without what the engine adds on
    /// the wire (`Content-Length`, `Date`, `Connection`, CORS headers of actual requests).
    public init(_ response: Response) {
        self.init()
        httpVersion = "HTTP/1.1"
        status = response.status
        headers = response.headers.fields
        if case .bytes(let bytes) = response.body { bodyBytes = bytes }
        head = (["HTTP/1.1 \(status)"] + headers.map { "\($0.name): \($0.value)" }).joined(separator: "\r\n")
    }
}
