/// What the engine remembers about a request while its response is pending: enough to order, frame and log it.
struct Exchange: Sendable {
    let sequence: UInt64
    let method: HTTPMethod
    let target: String
    let requestID: String
    let startedNanos: UInt64
    let keepAlive: Bool
    let http10: Bool
    /// The CORS headers its response gets.
    var cors: CORSDecision = .none
    /// The client's address (`Request.remoteAddress`), for the access log; empty for answers the engine made
    /// before a request was parsed.
    var client = ""
    /// What answered it, for the request metrics: a route index or a `RouteMatch` kind. Answers the engine makes
    /// before routing keep `rejected`.
    var route: Int32 = RouteMatch.rejected

    var isHead: Bool { method == .HEAD }

    /// The path without its query string, for the access log.
    var logPath: Substring {
        if let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) { return target[..<q] }
        return target[...]
    }
}
