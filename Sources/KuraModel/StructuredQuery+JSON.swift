/// The wire format of a query: the body of `POST /api/query` (and of `/api/query/count`, `/api/query/aggregate` and
/// a realtime listener's `query`):
/// `{"collection"|"collectionGroup", "where", "orderBy", "limit", "startAt"|"startAfter", "endAt"|"endBefore",
///   "select", "pageToken"}`; a `where` entry is `{"field","op","value"}`, `{"or":[…]}` or `{"and":[…]}`, an
/// `orderBy` entry `{"field","direction":"asc"|"desc"}`. The server decodes it with `init(json:)`, the Swift SDK
/// encodes it with `json`: one definition for both (docs/api.md, "Queries").
extension StructuredQuery {
    /// The members a query body may have.
    public static let jsonMembers: Set<String> = [
        "collection", "collectionGroup", "where", "orderBy", "limit", "startAt", "startAfter", "endAt", "endBefore",
        "select", "pageToken",
    ]

    /// Decodes a query body. Every mistake is a 400 `ValidationError`: `INVALID_QUERY`, or `INVALID_PATH` for the
    /// collection path or collection group ID. Top-level field filters of `where` become `filters`, `or`/`and`
    /// entries `composites`.
    ///
    /// `checkFilters` sees the filters as soon as `where` is read, before the members after it are, so that a
    /// caller's own limits on filters (the server's `query.*` settings) are answered before a mistake further on.
    /// `limit` is taken as given: which limits are allowed (and what none means) is the caller's setting.
    public init(
        json value: JSONValue,
        checkingFilters checkFilters: (_ filters: [Filter], _ composites: [FilterTree]) throws -> Void = { _, _ in }
    ) throws {
        let body = try JSONMembers(value, code: .invalidQuery, context: "the query")
        try body.allowOnly(Self.jsonMembers, in: "the query")
        let source: Source
        switch (try body.string("collection"), try body.string("collectionGroup")) {
        case (let path?, nil): source = .collection(try CollectionPath(path))
        case (nil, let id?):
            try ResourcePath.validateID(id)
            source = .collectionGroup(id)
        default: throw ValidationError.invalidQuery("a query needs exactly one of 'collection' and 'collectionGroup'")
        }
        self.init(source)
        for entry in try body.array("where") ?? [] {
            switch try FilterTree(json: entry) {
            case .filter(let filter): filters.append(filter)
            case let tree: composites.append(tree)
            }
        }
        try checkFilters(filters, composites)
        orderBy = try (body.array("orderBy") ?? []).map(Order.init(json:))
        limit = try body.integer("limit").map { Int($0) }
        start = try Cursor(body, inclusive: "startAt", exclusive: "startAfter")
        end = try Cursor(body, inclusive: "endAt", exclusive: "endBefore")
        if let names = try body.array("select") {
            select = try names.map { name in
                guard let name = name.stringValue else {
                    throw ValidationError.invalidQuery("'select' lists field names")
                }
                return try QueryField.asQueryMistake { try FieldPath(name) }
            }
        }
        pageToken = try body.string("pageToken")
    }

    /// The query as a query body; `StructuredQuery(json: query.json)` gives the query back (its `budget`, which is
    /// not sent, aside).
    public var json: JSONValue {
        var body = JSONObject()
        switch source {
        case .collection(let path): body["collection"] = .string(path.description)
        case .collectionGroup(let id): body["collectionGroup"] = .string(id)
        }
        let entries = filters.map { FilterTree.filter($0).json } + composites.map(\.json)
        if !entries.isEmpty { body["where"] = .array(entries) }
        if !orderBy.isEmpty { body["orderBy"] = .array(orderBy.map(\.json)) }
        if let limit { body["limit"] = .int(Int64(limit)) }
        if let start { body[start.inclusive ? "startAt" : "startAfter"] = .array(start.values) }
        if let end { body[end.inclusive ? "endAt" : "endBefore"] = .array(end.values) }
        if let select { body["select"] = .array(select.map { .string($0.description) }) }
        if let pageToken { body["pageToken"] = .string(pageToken) }
        return .object(body)
    }
}

extension QueryField {
    /// A field name as a query gives it (`id`, `createTime`, `updateTime`, `__name__` or a field path); a malformed
    /// field path is 400 `INVALID_QUERY`, like every other mistake in a query.
    public init(queryName name: String) throws { self = try Self.asQueryMistake { try QueryField(name) } }

    /// `body`'s field path refusal (`INVALID_ARGUMENT`) as the query mistake it is in a query.
    fileprivate static func asQueryMistake<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as ValidationError where error.code == .invalidArgument {
            throw ValidationError.invalidQuery(error.message)
        }
    }
}

extension FilterTree {
    /// Decodes a `where` entry: a field filter, or `{"or":[…]}` / `{"and":[…]}` of entries; throws 400
    /// `INVALID_QUERY`.
    public init(json value: JSONValue) throws {
        guard case .object(let object) = value, object.count == 1, let (key, children) = object.members.first,
            key == "or" || key == "and"
        else {
            self = .filter(try Filter(json: value))
            return
        }
        guard case .array(let entries) = children, !entries.isEmpty else {
            throw ValidationError.invalidQuery("'\(key)' takes a non-empty array of filters")
        }
        let conditions = try entries.map(FilterTree.init(json:))
        self = key == "or" ? .or(conditions) : .and(conditions)
    }

    /// The entry as `where` holds it: `{"field","op","value"}`, `{"or":[…]}` or `{"and":[…]}`. Realtime also keys
    /// shared views with it (operands as the tree holds them, converted or not).
    public var json: JSONValue {
        switch self {
        case .filter(let filter):
            .object(
                JSONObject([
                    ("field", .string(filter.field.description)), ("op", .string(filter.op.rawValue)),
                    ("value", filter.value),
                ]))
        case .or(let children): .object(JSONObject([("or", .array(children.map(\.json)))]))
        case .and(let children): .object(JSONObject([("and", .array(children.map(\.json)))]))
        }
    }
}

extension Filter {
    /// Decodes `{"field","op","value"}`; throws 400 `INVALID_QUERY`.
    public init(json value: JSONValue) throws {
        let body = try JSONMembers(value, code: .invalidQuery, context: "a 'where' clause")
        try body.allowOnly(["field", "op", "value"], in: "a 'where' clause")
        guard let field = try body.string("field") else {
            throw ValidationError.invalidQuery("a 'where' clause needs 'field'")
        }
        guard let name = try body.string("op") else {
            throw ValidationError.invalidQuery("a 'where' clause needs 'op'")
        }
        guard let op = Operator(rawValue: name) else {
            let known = Operator.allCases.map(\.rawValue).joined(separator: " ")
            throw ValidationError.invalidQuery("unknown operator '\(name)'; use one of: \(known)")
        }
        guard let operand = body["value"] else { throw ValidationError.invalidQuery("a 'where' clause needs 'value'") }
        self.init(try QueryField(queryName: field), op, operand)
    }
}

extension Order {
    /// Decodes `{"field","direction"}`: `asc` (the default, or `ascending`) or `desc` (`descending`), in any case;
    /// throws 400 `INVALID_QUERY`.
    public init(json value: JSONValue) throws {
        let body = try JSONMembers(value, code: .invalidQuery, context: "an 'orderBy' entry")
        try body.allowOnly(["field", "direction"], in: "an 'orderBy' entry")
        guard let field = try body.string("field") else {
            throw ValidationError.invalidQuery("'orderBy' entries need 'field'")
        }
        switch try body.string("direction")?.lowercased() {
        case nil, "asc", "ascending": self.init(try QueryField(queryName: field))
        case "desc", "descending": self.init(try QueryField(queryName: field), descending: true)
        case let other?: throw ValidationError.invalidQuery("direction '\(other)' must be 'asc' or 'desc'")
        }
    }

    /// `{"field","direction"}`, the direction always given.
    public var json: JSONValue {
        .object(
            JSONObject([("field", .string(field.description)), ("direction", .string(descending ? "desc" : "asc"))]))
    }
}

extension Cursor {
    /// The cursor of `body` given by its member `inclusive` or `exclusive` (`startAt`/`startAfter`,
    /// `endAt`/`endBefore`), `nil` for neither; both is 400 `INVALID_QUERY`.
    fileprivate init?(_ body: JSONMembers, inclusive: String, exclusive: String) throws {
        switch (try body.array(inclusive), try body.array(exclusive)) {
        case (nil, nil): return nil
        case (let values?, nil): self.init(values: values, inclusive: true)
        case (nil, let values?): self.init(values: values, inclusive: false)
        default: throw ValidationError.invalidQuery("use only one of '\(inclusive)' and '\(exclusive)'")
        }
    }
}
