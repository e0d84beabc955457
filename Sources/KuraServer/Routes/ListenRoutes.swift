import KuraCore
import KuraHTTP
import KuraModel
import KuraRealtime
import KuraStore

/// Realtime listeners over Server-Sent Events (docs/realtime.md): `GET /api/listen` opens a stream,
/// `POST /api/listen/{connectionId}` adds and removes its targets. For any caller (`CallerPolicy.anyone`), whose
/// token may also come as `?token=` (browsers' EventSource cannot set headers).
struct ListenRoutes {
    let registry: ListenerRegistry
    let access: RealtimeAccess
    let callers: CallerResolution
    let pages: PageLimits
    /// The limits on a target query's filters (`query.*`).
    var queryLimits = QueryLimits()

    func register(on router: Router<KuraContext>) {
        let forAnyoneWithTokenInQuery = callers.routes(.anyone, tokenInQuery: true, on: router)
        forAnyoneWithTokenInQuery.get("/api/listen") { request, context in
            let resume = try Self.resumePosition(request)
            let target = try Self.urlTarget(request, pages: pages, queryLimits: queryLimits)
            guard registry.hasCapacity else {
                throw APIError.unavailable(
                    "too many listen streams (limit \(registry.configuration.maxConnections)); retry later")
            }
            let environment = context.environment
            let principal = access.principal(context, bearerToken: context.credential)
            return .stream(headers: Self.streamHeaders) { stream in
                do {
                    let connection = try registry.open(principal: principal, stream: stream, resume: resume)
                    if let target {
                        try registry.add(
                            target, to: connection, resumeAfter: resume, fromURL: true,
                            workers: environment.workers, loop: stream.eventLoop)
                    }
                } catch {
                    let failure = APIError(answering: error) ?? .internalError(requestID: stream.requestID)
                    stream.write(Self.errorEvent(failure, target: target?.id))
                    stream.finish(closingConnection: true)
                }
            }
        }
        forAnyoneWithTokenInQuery.post("/api/listen/:connection") { request, context in
            guard let connection = registry.connection(try request.parameter("connection")) else {
                throw APIError.notFound("no open listen stream with this id")
            }
            let (adds, removes) = try Self.targetChanges(request, pages: pages, queryLimits: queryLimits)
            let environment = context.environment
            let principal = access.principal(context, bearerToken: context.credential)
            guard principal.identity.bytesEqual(connection.principal.identity) else {
                throw APIError.permissionDenied("this listen stream belongs to another caller")
            }
            var removed: [JSONValue] = []
            for id in removes where registry.remove(id, from: connection) { removed.append(.string(id)) }
            for (target, resumeAfter) in adds {
                try registry.add(
                    target, to: connection, resumeAfter: resumeAfter, workers: environment.workers,
                    loop: environment.eventLoop)
            }
            let body: JSONValue = .object([
                "added": .array(adds.map { .string($0.0.id) }), "removed": .array(removed),
            ])
            return .json(body.jsonBytes)
        }
    }

    static let streamHeaders: HTTPHeaders = [
        "Content-Type": "text/event-stream", "Cache-Control": "no-cache",
        // Proxies such as nginx buffer responses unless told not to.
        "X-Accel-Buffering": "no",
    ]

    /// `Last-Event-ID` (sent by EventSource when it reconnects), else `?lastEventId=` (for a new EventSource
    /// that continues an old one, e.g. after a token refresh).
    static func resumePosition(_ request: Request) throws -> StreamPosition? {
        guard let text = request.headers["Last-Event-ID"] ?? request.query("lastEventId"), !text.isEmpty else {
            return nil
        }
        guard let position = StreamPosition(text.trimmingSpaces()) else {
            throw APIError.badRequest("Last-Event-ID '\(text.prefix(80))' is not an event id of this server")
        }
        return position
    }

    /// The single target of `?doc=PATH` or `?query=JSON`, named by `?target=` (default `default`).
    static func urlTarget(_ request: Request, pages: PageLimits, queryLimits: QueryLimits) throws -> ListenTarget? {
        let id = request.query("target") ?? "default"
        switch (request.query("doc"), request.query("query")) {
        case (nil, nil): return nil
        case (let path?, nil): return try ListenTarget(id: id, document: try DocumentPath(path))
        case (nil, let json?):
            let value: JSONValue
            do { value = try JSONValue.parse(Array(json.utf8)) } catch {
                throw APIError.invalidQuery("'query' is not valid JSON")
            }
            return try ListenTarget(
                id: id, query: try QueryDecoding.decode(value, limits: pages, queryLimits: queryLimits, paged: false))
        default: throw APIError.badRequest("give one of 'doc' and 'query', not both")
        }
    }

    /// `{"add":[{"id","doc"|"query","resumeAfter"?}], "remove":["id"]}`.
    static func targetChanges(
        _ request: Request, pages: PageLimits, queryLimits: QueryLimits
    ) throws -> (
        adds: [(ListenTarget, StreamPosition?)], removes: [String]
    ) {
        let body = try JSONBody(request)
        try body.allowOnly(["add", "remove"])
        var adds: [(ListenTarget, StreamPosition?)] = []
        var seen: Set<String> = []
        for item in try body.array("add") ?? [] {
            let entry = try JSONBody(item, code: .invalidArgument, context: "an 'add' entry")
            try entry.allowOnly(["id", "doc", "query", "resumeAfter"], in: "an 'add' entry")
            guard let id = try entry.string("id") else { throw APIError.badRequest("an 'add' entry needs 'id'") }
            guard seen.insert(id).inserted else { throw APIError.badRequest("target '\(id)' is added twice") }
            let target: ListenTarget
            switch (try entry.string("doc"), entry["query"]) {
            case (let path?, nil): target = try ListenTarget(id: id, document: try DocumentPath(path))
            case (nil, let query?) where query != .null:
                target = try ListenTarget(
                    id: id,
                    query: try QueryDecoding.decode(query, limits: pages, queryLimits: queryLimits, paged: false))
            default: throw APIError.badRequest("an 'add' entry needs one of 'doc' and 'query'")
            }
            var resumeAfter: StreamPosition?
            switch entry["resumeAfter"] {
            case nil, .null?: break
            case .string(let text)?: resumeAfter = StreamPosition(text)
            case .int(let sequence)?: resumeAfter = sequence >= 0 ? StreamPosition(sequence) : nil
            default: break
            }
            if entry["resumeAfter"] != nil && entry["resumeAfter"] != .null && resumeAfter == nil {
                throw APIError.badRequest("'resumeAfter' must be an event id of this server")
            }
            adds.append((target, resumeAfter))
        }
        var removes: [String] = []
        for item in try body.array("remove") ?? [] {
            guard let id = item.stringValue else { throw APIError.badRequest("'remove' lists target ids") }
            removes.append(id)
        }
        guard !adds.isEmpty || !removes.isEmpty else {
            throw APIError.badRequest("give targets to 'add' or 'remove'")
        }
        return (adds, removes)
    }

    /// An error after the stream started: `event: error` (for the URL target, if there is one).
    static func errorEvent(_ error: APIError, target: String?) -> [UInt8] {
        var data: JSONObject = ["code": .string(error.code.rawValue), "message": .string(error.message)]
        if let target { data["target"] = .string(target) }
        return Array("event: error\ndata: \(JSONValue.object(data).jsonString)\n\n".utf8)
    }
}
