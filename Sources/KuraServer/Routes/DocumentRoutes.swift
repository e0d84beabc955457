import KuraCore
import KuraHTTP
import KuraModel
import KuraStore
import Synchronization

/// `/api/docs/{path}`: one document or one collection, for any caller (`CallerPolicy.anyone`; the security rules
/// decide). Reads run on the worker pool unless the document is in the hot cache; writes go through `DurableCommit`.
struct DocumentRoutes {
    /// The store behind its hot-document cache; a cache hit is answered on the event loop.
    let store: CachedDocumentStore
    let access: DataAccess
    let callers: CallerResolution
    let pages: PageLimits

    func register(on router: Router<KuraContext>) {
        let forAnyone = callers.routes(.anyone, on: router)
        forAnyone.get("/api/docs/*path") { request, context in
            let caller = context.caller
            if let pathKey = request.parameters["path"], let path = try? DocumentPath(pathKey),
                let entry = store.cache.lookup(path)
            {
                if case .admin = caller { return documentResponse(body: entry.body, version: entry.version) }
                do {
                    // On the loop for a user whose claims are cached; MustRunOnWorkerPool if rules look up.
                    try access.authorizeGet(
                        caller, path, pathKey: pathKey, fields: entry.fields, on: context.environment.eventLoop)
                    return documentResponse(body: entry.body, version: entry.version)
                } catch is MustRunOnWorkerPool {}
            }
            return try context.offload { try read(request, caller) }
        }
        let durable = DurableCommit(store: store, lines: access.writeLines)
        forAnyone.post("/api/docs/*path") { request, context in
            let caller = context.caller
            let path = try CollectionPath(try request.parameter("path")).document(AutoID.automatic())
            let fields = Fields()
            // A new automatic ID: nothing to read (`resource` is null) and nothing to pin.
            return durable.respond(
                to: request, context.environment, caller: caller, access: access, readsExisting: false
            ) {
                fields.value = try dataObject(request)
                return [Write(path: path, operation: .create(fields.value))]
            } respond: { results in
                let time = results.first?.updateTime ?? 0
                let document = Document(
                    path: path, fields: fields.value, createTime: time, updateTime: time, version: 1)
                return documentResponse(document, status: 201)
            }
        }
        forAnyone.put("/api/docs/*path") { request, context in
            let caller = context.caller
            let path = try DocumentPath(try request.parameter("path"))
            return durable.respond(
                to: request, context.environment, caller: caller, access: access, answer: .onWorkerPool
            ) {
                [try setWrite(path, request)]
            } respond: { _ in
                try written(path, caller)
            }
        }
        forAnyone.patch("/api/docs/*path") { request, context in
            let caller = context.caller
            let path = try DocumentPath(try request.parameter("path"))
            return durable.respond(
                to: request, context.environment, caller: caller, access: access, answer: .onWorkerPool
            ) {
                let fields = try Write.fieldUpdates(try dataObject(request))
                return [
                    Write(path: path, operation: .update(fields), precondition: try versionPrecondition(request))
                ]
            } respond: { _ in
                try written(path, caller)
            }
        }
        forAnyone.delete("/api/docs/*path") { request, context in
            let caller = context.caller
            let path = try DocumentPath(try request.parameter("path"))
            return durable.respond(to: request, context.environment, caller: caller, access: access) {
                [Write(path: path, operation: .delete, precondition: try versionPrecondition(request))]
            } respond: { _ in
                .noContent
            }
        }
    }

    /// The decoded fields of a create, carried from decoding to the answer.
    private final class Fields: Sendable {
        private let fields = Mutex(JSONObject())
        var value: JSONObject {
            get { fields.withLock { $0 } }
            set { fields.withLock { $0 = newValue } }
        }
    }

    // MARK: Handlers (worker pool)

    private func read(_ request: Request, _ caller: Caller) throws -> Response {
        let raw = try request.parameter("path")
        // Decide by what parses (the path types accept a trailing slash), not by counting raw segments.
        guard let path = try? DocumentPath(raw) else { return try list(CollectionPath(raw), request, caller) }
        let entry = try store.encodedDocument(path)
        // Checked before answering 404, so a caller who may not read a path cannot learn whether it exists.
        try access.authorize(
            caller, .get, path: path.segments, resource: entry.map { DataAccess.ruleDocument(path, $0.fields) },
            time: WallClock.nowMicros(), rules: access.rules.current.ruleSet, onLoop: false)
        guard let entry else {
            // `?missing=ok`: a missing document is an answer, not an error (browsers log every 404 in red).
            guard try missingIsAnswer(request) else { throw APIError.notFound("no document at \(path)") }
            return .json(JSONValue.object(["path": .string(path.description), "exists": .bool(false)]).jsonBytes)
        }
        return documentResponse(body: entry.body, version: entry.version)
    }

    /// Whether `GET /api/docs/{document}?missing=ok` asks for a 200 `{"path","exists":false}` instead of a 404.
    private func missingIsAnswer(_ request: Request) throws -> Bool {
        guard let value = request.query("missing") else { return false }
        guard value == "ok" else { throw APIError.badRequest("'missing' takes only 'ok'") }
        return true
    }

    /// `GET /api/docs/{collection}?limit=&orderBy=field [desc],…&pageToken=`.
    private func list(_ collection: CollectionPath, _ request: Request, _ caller: Caller) throws -> Response {
        var query = StructuredQuery(.collection(collection))
        let limit = try request.query("limit").map { text -> Int64 in
            guard let n = Int64(text) else { throw APIError.invalidQuery("'limit' must be an integer") }
            return n
        }
        query.limit = try QueryDecoding.limit(limit, pages)
        if let orderBy = request.query("orderBy") {
            query.orderBy = try orderBy.split(separator: ",").map { clause in
                let words = clause.split(separator: " ")
                guard let field = words.first, words.count <= 2 else {
                    throw APIError.invalidQuery("orderBy takes 'field' or 'field desc', comma-separated")
                }
                switch words.count == 2 ? words[1].lowercased() : "asc" {
                case "asc": return Order(try QueryDecoding.field(String(field)))
                case "desc": return Order(try QueryDecoding.field(String(field)), descending: true)
                default: throw APIError.invalidQuery("orderBy direction must be asc or desc")
                }
            }
        }
        query.pageToken = request.query("pageToken")
        return QueryRoutes.resultResponse(try access.query(query, caller: caller))
    }

    /// `PUT`: create or replace; `?merge=true` deep-merges; `?exists=false` creates only; `If-Match` checks the version.
    private func setWrite(_ path: DocumentPath, _ request: Request) throws -> Write {
        let merge = try flag(request, "merge") ?? false
        var precondition = try versionPrecondition(request)
        if let exists = try flag(request, "exists") {
            guard precondition == nil else {
                throw APIError.badRequest("use either If-Match or ?exists, not both")
            }
            precondition = .exists(exists)
        }
        return Write(path: path, operation: .set(try dataObject(request), merge: merge), precondition: precondition)
    }

    // MARK: Helpers

    /// The `data` object of `{"data":{…}}`.
    private func dataObject(_ request: Request) throws -> JSONObject {
        let body = try JSONBody(request)
        try body.allowOnly(["data"])
        guard let data = try body.object("data") else {
            throw APIError.badRequest("the body needs 'data' (an object)")
        }
        return data
    }

    /// `If-Match: 3` or `If-Match: "3"` (the document's version, as its ETag).
    private func versionPrecondition(_ request: Request) throws -> Precondition? {
        guard var value = request.headers["If-Match"] else { return nil }
        if value.hasPrefix("W/") { value.removeFirst(2) }
        if value.count >= 2, value.first == "\"", value.last == "\"" { value = String(value.dropFirst().dropLast()) }
        guard let version = Int64(value) else {
            throw APIError.badRequest("If-Match takes the document version, e.g. If-Match: \"3\"")
        }
        return .version(version)
    }

    private func flag(_ request: Request, _ name: String) throws -> Bool? {
        switch request.query(name) {
        case nil: return nil
        case "true", "1", "": return true
        case "false", "0": return false
        case let other?: throw APIError.badRequest("?\(name) must be true or false, not '\(other)'")
        }
    }

    /// The document as it is after a write (read back, so createTime and transforms are exact). A caller the rules
    /// let write but not `get` it gets its metadata without `data`.
    private func written(_ path: DocumentPath, _ caller: Caller) throws -> Response {
        guard let document = try store.get(path) else { throw APIError.notFound("no document at \(path)") }
        if access.mayRead(caller, document) { return documentResponse(document) }
        var json = document.json.objectValue ?? JSONObject()
        json["data"] = nil
        return documentResponse(body: JSONValue.object(json).jsonBytes, version: document.version)
    }

    private func documentResponse(_ document: Document, status: Int = 200) -> Response {
        documentResponse(body: document.jsonBytes, version: document.version, status: status)
    }

    private func documentResponse(body: [UInt8], version: Int64, status: Int = 200) -> Response {
        var response = Response.json(body, status: status)
        response.headers.add("ETag", "\"\(version)\"")
        return response
    }
}
