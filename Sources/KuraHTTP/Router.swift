import KuraCore
import KuraModel

/// Per-request state handed to handlers. Applications define their own (holding, say, the caller's identity)
/// and the router builds one for every request.
public protocol RequestContext: Sendable {
    init(environment: RequestEnvironment)
    var environment: RequestEnvironment { get }
}

/// The context for applications that need nothing beyond the engine's facilities.
public struct BasicRequestContext: RequestContext {
    public let environment: RequestEnvironment
    public init(environment: RequestEnvironment) { self.environment = environment }
}

/// Routes requests by method and path pattern. Patterns are `/`-separated segments: literals, `:name`
/// (one segment) and a final `*name` (one or more segments, the rest of the path). Literals win over
/// parameters, parameters over wildcards. A known path with an unknown method is 405 with `Allow`;
/// HEAD falls back to GET. Register every route before the server starts; after that it is read-only.
public final class Router<Context: RequestContext>: HTTPResponder, @unchecked Sendable {
    // `@unchecked`: routes and `fallback` are registered before the server starts and only read after.
    public typealias Handler = @Sendable (Request, Context) throws -> Response

    private let root = Node()

    /// Answers requests whose path no route matches (any method), instead of 404 `NOT_FOUND`: static hosting.
    /// Set it before the server starts.
    public var fallback: Handler?

    /// Headers the router's own error answers get, by exact path (`addHeaders(_:toErrorsAt:)`).
    private var errorHeaders: [Substring: HTTPHeaders] = [:]

    /// Every registered route, in registration order: what a test enumerates to check each endpoint.
    public private(set) var routes: [(method: HTTPMethod, pattern: String)] = []

    public var routeTemplates: [(method: HTTPMethod, pattern: String)] { routes }

    public init() {}

    /// Registers `handler` for `method` on `pattern`. A pattern ending in `/` (other than `/` itself) matches only
    /// with that slash: `/_/` and `/_` are two routes.
    public func on(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping Handler) {
        var node = root
        var segments = pattern.split(separator: "/", omittingEmptySubsequences: true)
        if pattern.count > 1 && pattern.hasSuffix("/") { segments.append("") }
        for (index, segment) in segments.enumerated() {
            if segment.hasPrefix("*") {
                precondition(index == segments.count - 1, "a wildcard must be the last segment: \(pattern)")
                let name = String(segment.dropFirst())
                let child = node.wildcard?.node ?? Node()
                node.wildcard = (name, child)
                node = child
            } else if segment.hasPrefix(":") {
                let name = String(segment.dropFirst())
                if let existing = node.parameter {
                    precondition(existing.name == name, "conflicting parameter names at \(pattern)")
                    node = existing.node
                } else {
                    let child = Node()
                    node.parameter = (name, child)
                    node = child
                }
            } else {
                let key = Substring(segment)
                if let child = node.literals[key] {
                    node = child
                } else {
                    let child = Node()
                    node.literals[key] = child
                    node = child
                }
            }
        }
        precondition(node.handlers[method] == nil, "\(method) \(pattern) registered twice")
        node.handlers[method] = handler
        node.routeIDs[method] = Int32(routes.count)
        routes.append((method, pattern))
    }

    /// Adds `headers` to the error answers made here for requests to exactly `path` (a malformed query string, a
    /// method the path lacks, an error its handler throws), so that a page whose every answer must carry them (the
    /// action page's security headers) carries them on those too.
    public func addHeaders(_ headers: HTTPHeaders, toErrorsAt path: String) {
        for field in headers { errorHeaders[Substring(path), default: HTTPHeaders()].add(field.name, field.value) }
    }

    public func get(_ pattern: String, _ handler: @escaping Handler) { on(.GET, pattern, handler) }
    public func post(_ pattern: String, _ handler: @escaping Handler) { on(.POST, pattern, handler) }
    public func put(_ pattern: String, _ handler: @escaping Handler) { on(.PUT, pattern, handler) }
    public func patch(_ pattern: String, _ handler: @escaping Handler) { on(.PATCH, pattern, handler) }
    public func delete(_ pattern: String, _ handler: @escaping Handler) { on(.DELETE, pattern, handler) }

    /// The outcome of matching a method and path.
    public enum Match {
        /// `route` is the route's index in `routes`.
        case found(Handler, parameters: [String: String], route: Int32)
        case methodNotAllowed(allow: [String])
        case notFound
        /// A captured parameter cannot be decoded; the message says why (400 `INVALID_PATH`).
        case badPath(String)
    }

    /// Finds the handler for `method` on the (percent-encoded) `path`.
    public func match(_ method: HTTPMethod, path: Substring) -> Match {
        guard path.first == "/" else { return .notFound }
        // "/" is the root itself: no segments. Otherwise the first segment starts after the leading "/".
        let first = path == "/" ? nil : path.index(after: path.startIndex)
        var captured: [(String, Substring)] = []
        guard let node = find(root, in: path, from: first, &captured) else { return .notFound }
        let registered = node.handlers[method] != nil ? method : .GET
        guard let handler = node.handlers[method] ?? (method == .HEAD ? node.handlers[.GET] : nil) else {
            var allow = node.handlers.keys.map(\.description)
            if node.handlers[.GET] != nil && node.handlers[.HEAD] == nil { allow.append("HEAD") }
            return .methodNotAllowed(allow: allow.sorted())
        }
        var parameters: [String: String] = [:]
        for (name, raw) in captured {
            // An encoded slash would decode into a segment separator (`a%2Fb` → `a/b`), turning one ID into a
            // deeper path: refused, since no segment can hold a `/`.
            if Self.containsEncodedSlash(raw) {
                return .badPath("'%2F' (an encoded '/') cannot be part of a path segment")
            }
            guard let value = PercentDecoding.decode(raw) else {
                return .badPath("malformed percent-encoding in the path")
            }
            parameters[name] = value
        }
        return .found(handler, parameters: parameters, route: node.routeIDs[registered] ?? RouteMatch.unmatched)
    }

    /// Refuses a query string the handlers would read differently from the client: a name or value that does not
    /// percent-decode (it would read as absent: `?exists=%zz` would drop a create-only precondition) or a name given
    /// twice (`query(_:)` reads the first; the second would be ignored, where a proxy might have used it).
    static func validate(query: Substring) throws {
        var names: Set<[UInt8]> = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentDecoding.decode(parts[0], plusIsSpace: true),
                parts.count == 1 || PercentDecoding.decode(parts[1], plusIsSpace: true) != nil
            else {
                throw APIError.badRequest("malformed percent-encoding in the query string")
            }
            // By bytes: two names that differ only in Unicode normalization are two names.
            guard names.insert(Array(name.utf8)).inserted else {
                throw APIError.badRequest("query parameter '\(name)' is given more than once")
            }
        }
    }

    /// Whether `raw` holds `%2F` or `%2f`.
    private static func containsEncodedSlash(_ raw: Substring) -> Bool {
        let bytes = raw.utf8
        var index = bytes.startIndex
        while let percent = bytes[index...].firstIndex(of: UInt8(ascii: "%")) {
            let next = bytes.index(after: percent)
            guard next < bytes.endIndex, bytes[next] == UInt8(ascii: "2") else {
                index = next
                continue
            }
            let last = bytes.index(after: next)
            if last < bytes.endIndex, bytes[last] | 0x20 == UInt8(ascii: "f") { return true }
            index = last
        }
        return false
    }

    /// Matches the segments of `path` from `start` (where a segment begins, possibly an empty one at the end;
    /// nil when no segment is left) below `node`. Walks the path in place: no segment array, and a wildcard
    /// captures the rest of the path as it is.
    private func find(
        _ node: Node, in path: Substring, from start: Substring.Index?, _ captured: inout [(String, Substring)]
    ) -> Node? {
        guard let start else { return node.handlers.isEmpty ? nil : node }
        let end = path.utf8[start...].firstIndex(of: UInt8(ascii: "/")) ?? path.endIndex
        let segment = path[start..<end]
        let next = end == path.endIndex ? nil : path.index(after: end)
        if let child = node.literals[segment], let found = find(child, in: path, from: next, &captured) {
            return found
        }
        if !segment.isEmpty, let (name, child) = node.parameter {
            captured.append((name, segment))
            if let found = find(child, in: path, from: next, &captured) { return found }
            captured.removeLast()
        }
        let rest = path[start...]
        if let (name, child) = node.wildcard, !child.handlers.isEmpty,
            rest.utf8.contains(where: { $0 != UInt8(ascii: "/") })
        {
            captured.append((name, rest))
            return child
        }
        return nil
    }

    /// Routes, runs the handler, and turns anything it throws into the JSON error response.
    public func respond(to request: Request, environment: RequestEnvironment) -> Response {
        do {
            switch match(request.method, path: request.path) {
            case .found(let handler, let parameters, let route):
                environment.matchedRoute?.value = route
                if let query = request.queryString { try Self.validate(query: query) }
                var request = request
                request.parameters = parameters
                return try handler(request, Context(environment: environment))
            case .methodNotAllowed(let allow):
                throw APIError.methodNotAllowed("\(request.method) is not allowed on \(request.path)", allow: allow)
            case .notFound:
                if let fallback {
                    environment.matchedRoute?.value = RouteMatch.fallback
                    return try fallback(request, Context(environment: environment))
                }
                throw APIError.notFound("no route for \(request.method) \(request.path)")
            case .badPath(let message):
                throw APIError.invalidPath(message)
            }
        } catch {
            var response = ErrorResponses.response(
                for: error, requestID: request.requestID, logger: environment.logger,
                verbose: environment.verboseErrors)
            if !errorHeaders.isEmpty, let extra = errorHeaders[request.path] {
                for field in extra { response.headers.add(field.name, field.value) }
            }
            return response
        }
    }

    private final class Node {
        /// Keyed by Substring so that matching looks segments up without copying them.
        var literals: [Substring: Node] = [:]
        var parameter: (name: String, node: Node)?
        var wildcard: (name: String, node: Node)?
        var handlers: [HTTPMethod: Handler] = [:]
        /// Each handler's index in `routes`.
        var routeIDs: [HTTPMethod: Int32] = [:]
    }
}
