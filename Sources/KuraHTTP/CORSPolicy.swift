import KuraCore
import KuraModel

/// Which web pages may call the server from another origin (the Fetch standard's CORS protocol). The engine applies
/// it to every response (handlers' answers, errors, streams, its own refusals) and answers preflight requests
/// itself, so no handler deals with CORS.
public struct CORSPolicy: Sendable {
    /// The origins allowed to read responses.
    public enum Origins: Sendable, Equatable {
        /// Every origin (`Access-Control-Allow-Origin: *`). Safe for an API that authenticates with bearer tokens
        /// and never with cookies: a page on another origin can only send a token it already holds.
        case any
        /// Exactly these serialized origins (`https://app.example.com`, lower case, no path).
        case only(Set<String>)
    }

    public var origins: Origins = .any
    /// How long a browser may reuse a preflight answer (`Access-Control-Max-Age`).
    public var maxAgeSeconds: Int = 3600

    public init(origins: Origins = .any, maxAgeSeconds: Int = 3600) {
        self.origins = origins
        self.maxAgeSeconds = maxAgeSeconds
    }

    /// Methods a cross-origin page may use.
    public static let allowedMethods = "GET, HEAD, POST, PUT, PATCH, DELETE"
    /// Request headers a cross-origin page may send beyond the CORS-safelisted ones (the `X-Client-Version` and
    /// `X-Firebase-*` headers are the Firebase web SDK's, for the Firebase Auth endpoints).
    public static let allowedHeaders =
        "Authorization, Content-Type, Last-Event-ID, X-Request-Id, If-Match, If-None-Match, X-Client-Version, "
        + "X-Firebase-gmpid, X-Firebase-Client, X-Firebase-AppCheck, X-Firebase-Locale"
    /// Response headers a cross-origin page may read beyond the CORS-safelisted ones.
    public static let exposedHeaders = "X-Request-Id, Retry-After, ETag"

    /// Parses the `cors.origins` setting: `*`, or origins separated by commas or spaces (an empty list allows no
    /// other origin). Each origin is `scheme://host[:port]` with no path, as browsers send it.
    public static func parseOrigins(_ text: String) throws(CORSPolicyError) -> Origins {
        let trimmed = text.trimmingSpaces()
        if trimmed == "*" { return .any }
        var origins = Set<String>()
        for item in trimmed.split(whereSeparator: { $0 == "," || $0 == " " }) {
            let origin = item.lowercased()
            guard origin != "*" else { throw CORSPolicyError("'*' cannot be combined with other origins") }
            guard let schemeEnd = origin.firstRange(of: "://"), !origin[..<schemeEnd.lowerBound].isEmpty,
                origin[..<schemeEnd.lowerBound].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) })
            else { throw CORSPolicyError("'\(item)' is not an origin; expected scheme://host[:port]") }
            let authority = origin[schemeEnd.upperBound...]
            guard !authority.isEmpty, !authority.contains("/"), !authority.contains("?"), !authority.contains("#")
            else { throw CORSPolicyError("'\(item)' has a path; an origin is scheme://host[:port] only") }
            origins.insert(origin)
        }
        return .only(origins)
    }

    /// What to add to the response for a request that carried `origin` (nil: no `Origin` header).
    func decision(origin: String?) -> CORSDecision {
        switch origins {
        case .any: return .any
        case .only(let allowed):
            if let origin, allowed.contains(origin) || allowed.contains(origin.lowercased()) {
                return .allowed(origin)
            }
            return .varyOnly
        }
    }

    /// The answer to a CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`), or nil when
    /// `request` is not one. `Access-Control-Allow-Origin` and `Vary` are added with the exchange's decision.
    func preflightResponse(to request: Request) -> Response? {
        guard request.method == .OPTIONS, let origin = request.headers["Origin"],
            request.headers.contains("Access-Control-Request-Method")
        else { return nil }
        guard decision(origin: origin).allowsOrigin else {
            return Response(
                error: APIError.originNotAllowed(
                    "origin \(origin) may not call this server (cors.origins)"))
        }
        return Response(
            status: 204,
            headers: [
                "Access-Control-Allow-Methods": Self.allowedMethods,
                "Access-Control-Allow-Headers": Self.allowedHeaders,
                "Access-Control-Max-Age": String(maxAgeSeconds),
            ])
    }
}

/// A `cors.origins` value that cannot be used.
public struct CORSPolicyError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// The CORS headers one response gets, decided when its request arrives.
enum CORSDecision: Sendable {
    /// No CORS headers (requests the engine refused before reading their headers under a narrowed policy).
    case none
    /// `Access-Control-Allow-Origin: *`.
    case any
    /// The request's origin is on the list: echo it, with `Vary: Origin`.
    case allowed(String)
    /// Not allowed (or no `Origin`): no CORS headers, but `Vary: Origin`, since another origin gets another answer.
    case varyOnly

    var allowsOrigin: Bool {
        switch self {
        case .any, .allowed: true
        case .none, .varyOnly: false
        }
    }

    /// Appends the header lines (each ending in CRLF).
    func appendHeaders(to out: inout [UInt8]) {
        switch self {
        case .none: return
        case .any: out.append(contentsOf: Self.anyLines)
        case .allowed(let origin):
            out.append(contentsOf: "Access-Control-Allow-Origin: ".utf8)
            out.append(contentsOf: origin.utf8)
            out.append(contentsOf: Self.allowedLines)
        case .varyOnly: out.append(contentsOf: "Vary: Origin\r\n".utf8)
        }
    }

    private static let anyLines = Array(
        "Access-Control-Allow-Origin: *\r\nAccess-Control-Expose-Headers: \(CORSPolicy.exposedHeaders)\r\n".utf8)
    private static let allowedLines = Array(
        "\r\nAccess-Control-Expose-Headers: \(CORSPolicy.exposedHeaders)\r\nVary: Origin\r\n".utf8)
}
