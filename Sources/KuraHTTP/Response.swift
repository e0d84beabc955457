import KuraCore
import KuraModel

/// What a handler answers with: a complete response, a response that will be completed later
/// (work handed to the worker pool), or a stream of chunks (Server-Sent Events).
public struct Response: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Body

    public enum Body: Sendable {
        /// A complete body, sent with `Content-Length`.
        case bytes([UInt8])
        /// Status and headers now, then chunks written through the `ResponseStream` (`Transfer-Encoding: chunked`).
        case stream(@Sendable (ResponseStream) -> Void)
        /// The real response comes later through the promise; `status` and `headers` here are ignored.
        case deferred(@Sendable (ResponsePromise) -> Void)
    }

    public init(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = .bytes(body)
    }

    public init(status: Int, headers: HTTPHeaders, body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response from bytes that are already JSON.
    public static func json(_ bytes: [UInt8], status: Int = 200) -> Response {
        Response(status: status, headers: ["Content-Type": "application/json"], body: bytes)
    }

    public static func html(_ text: String, status: Int = 200) -> Response {
        Response(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: Array(text.utf8))
    }

    public static func text(_ text: String, status: Int = 200) -> Response {
        Response(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// 204 No Content.
    public static var noContent: Response { Response(status: 204) }

    /// A response completed later by whoever holds the promise, on any thread.
    public static func later(_ start: @escaping @Sendable (ResponsePromise) -> Void) -> Response {
        Response(status: 0, headers: HTTPHeaders(), body: .deferred(start))
    }

    /// A streaming response (chunked); `start` runs on the event loop once the head is queued.
    public static func stream(
        status: Int = 200, headers: HTTPHeaders, start: @escaping @Sendable (ResponseStream) -> Void
    ) -> Response {
        Response(status: status, headers: headers, body: .stream(start))
    }

    /// The JSON error response for a `APIError`.
    public init(error: APIError) {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        for (name, value) in error.headers { headers.add(name, value) }
        self.init(status: error.status, headers: headers, body: error.jsonBody)
    }
}
