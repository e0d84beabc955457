import KuraCore
import KuraHTTP
import KuraModel
import KuraStore

/// `POST /api/query` (`?explain=true`: which index answered and what it cost, admin only),
/// `POST /api/query/count`, `POST /api/query/aggregate` and `POST /api/commit`, for any caller (`CallerPolicy.anyone`; the security rules decide).
struct QueryRoutes {
    let store: any DocumentStore
    let access: DataAccess
    let callers: CallerResolution
    let pages: PageLimits
    /// Answers `explain`.
    let indexes: any CompositeIndexing
    /// What one query may ask for and cost (`query.*`).
    var queryLimits = QueryLimits()
    /// Queries each caller may run at once (`query.maxConcurrentPerCaller`).
    var concurrency = QueryConcurrency(perCaller: 0, workers: 4)

    func register(on router: Router<KuraContext>) {
        let forAnyone = callers.routes(.anyone, on: router)
        forAnyone.post("/api/query") { request, context in
            let caller = context.caller
            let slot = QueryConcurrency.key(caller, address: request.remoteAddress)
            return try concurrency.offload(slot, context) {
                let query = try QueryDecoding.decode(
                    try JSONValue.parse(request.body), limits: pages, queryLimits: queryLimits)
                if request.query("explain") == "true" {
                    guard case .admin = caller else {
                        throw APIError.permissionDenied("explain is for the admin key")
                    }
                    return .json(JSONValue.object(["explain": try indexes.explain(query).json]).jsonBytes)
                }
                return Self.resultResponse(try access.query(query, caller: caller))
            }
        }
        forAnyone.post("/api/query/count") { request, context in
            let caller = context.caller
            let slot = QueryConcurrency.key(caller, address: request.remoteAddress)
            return try concurrency.offload(slot, context) {
                let query = try QueryDecoding.decode(
                    try JSONValue.parse(request.body), limits: pages, queryLimits: queryLimits, paged: false)
                let count = try access.count(query, caller: caller)
                return .json(JSONValue.object(["count": .int(count)]).jsonBytes)
            }
        }
        forAnyone.post("/api/query/aggregate") { request, context in
            let caller = context.caller
            let slot = QueryConcurrency.key(caller, address: request.remoteAddress)
            return try concurrency.offload(slot, context) {
                let (query, aggregations) = try AggregateDecoding.decode(
                    try JSONValue.parse(request.body), limits: pages, queryLimits: queryLimits)
                let data = try access.aggregate(query, aggregations, caller: caller)
                return .json(JSONValue.object(["data": .object(data)]).jsonBytes)
            }
        }
        let durable = DurableCommit(store: store, lines: access.writeLines)
        forAnyone.post("/api/commit") { request, context in
            let caller = context.caller
            return durable.respond(to: request, context.environment, caller: caller, access: access) {
                try Self.writes(request)
            } respond: { results in
                Self.commitResponse(results)
            }
        }
    }

    /// `{"writes":[…]}` (KuraModel's `CommitRequest`): at most `CommitLimits.maxWrites`, all applied or none.
    private static func writes(_ request: Request) throws -> [Write] {
        guard !request.body.isEmpty else { throw APIError.badRequest("the request needs a JSON body") }
        return try CommitRequest.writes(try JSONValue.parse(request.body), maxWrites: CommitLimits.maxWrites)
    }

    /// `{"writeResults":[{"path","version","updateTime"}],"commitTime"}` (KuraModel's `CommitResponse`).
    private static func commitResponse(_ results: [WriteResult]) -> Response {
        let response = CommitResponse(
            results: results.map {
                CommitResponse.Result(
                    path: $0.path.description, version: $0.version, updateTime: RFC3339.format($0.updateTime))
            },
            commitTime: results.first.map { RFC3339.format($0.updateTime) })
        return .json(response.json.jsonBytes)
    }

    /// `{"documents":[…],"nextPageToken":…}`, written directly: building the `JSONValue` tree of every document
    /// first (an object per document, its timestamps as strings) took a third of the encoding's time.
    static func resultResponse(_ result: QueryPage) -> Response {
        .json(resultBody(result))
    }

    /// The bytes of `resultResponse`'s body; the same as encoding `{"documents": [each document's json],
    /// "nextPageToken": …}`.
    static func resultBody(_ result: QueryPage) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + 256 * result.documents.count)
        out.append(contentsOf: #"{"documents":["#.utf8)
        for (index, document) in result.documents.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            document.appendJSON(to: &out)
        }
        out.append(contentsOf: #"],"nextPageToken":"#.utf8)
        if let token = result.nextPageToken {
            appendJSONString(token, to: &out)
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
