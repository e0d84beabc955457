import KuraCore
import KuraModel
import KuraStore

/// Turns the JSON query of `POST /api/query` (and realtime listeners) into a `StructuredQuery`:
/// `{"collection"|"collectionGroup", "where", "orderBy", "limit", "startAt", "startAfter", "endAt", "endBefore",
/// "select", "pageToken"}`; a `where` entry is `{"field","op","value"}`, `{"or":[…]}` or `{"and":[…]}`. Every
/// mistake is 400 `INVALID_QUERY`.
enum QueryDecoding {
    static let fields: Set<String> = [
        "collection", "collectionGroup", "where", "orderBy", "limit", "startAt", "startAfter", "endAt", "endBefore",
        "select", "pageToken",
    ]

    /// With `paged` (queries), a query without `limit` gets the default page size; counts (`paged: false`) count
    /// everything that matches unless a limit is given. Filters past `queryLimits` are 400 `INVALID_ARGUMENT`.
    static func decode(
        _ value: JSONValue, limits: PageLimits, queryLimits: QueryLimits = QueryLimits(), paged: Bool = true
    ) throws -> StructuredQuery {
        let body = try JSONBody(value, code: .invalidQuery, context: "the query")
        try body.allowOnly(fields, in: "the query")
        let source: StructuredQuery.Source
        switch (try body.string("collection"), try body.string("collectionGroup")) {
        case (let path?, nil): source = .collection(try CollectionPath(path))
        case (nil, let id?):
            try ResourcePath.validateID(id)
            source = .collectionGroup(id)
        default: throw APIError.invalidQuery("a query needs exactly one of 'collection' and 'collectionGroup'")
        }
        var query = StructuredQuery(source)
        for entry in try body.array("where") ?? [] {
            switch try condition(entry) {
            case .filter(let filter): query.filters.append(filter)
            case let tree: query.composites.append(tree)
            }
        }
        try queryLimits.check(query.filters, query.composites)
        query.orderBy = try (body.array("orderBy") ?? []).map(order)
        let asked = try body.integer("limit")
        query.limit = paged || asked != nil ? try limit(asked, limits) : nil
        query.start = try cursor(body, inclusive: "startAt", exclusive: "startAfter")
        query.end = try cursor(body, inclusive: "endAt", exclusive: "endBefore")
        if let select = try body.array("select") {
            query.select = try select.map { value in
                guard let name = value.stringValue else { throw APIError.invalidQuery("'select' lists field names") }
                return try asQueryError { try FieldPath(name) }
            }
        }
        query.pageToken = try body.string("pageToken")
        return query
    }

    /// A field name in a query; a malformed field path is 400 `INVALID_QUERY` like every other query mistake.
    static func field(_ name: String) throws -> QueryField { try asQueryError { try QueryField(name) } }

    private static func asQueryError<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as ValidationError where error.code == .invalidArgument {
            throw ValidationError.invalidQuery(error.message)
        }
    }

    /// The effective limit: the asked one within `1...maxPageSize`, else the default page size.
    static func limit(_ asked: Int64?, _ limits: PageLimits) throws -> Int {
        guard let asked else { return limits.defaultPageSize }
        guard asked >= 1, asked <= Int64(limits.maxPageSize) else {
            throw APIError.invalidQuery("'limit' must be between 1 and \(limits.maxPageSize)")
        }
        return Int(asked)
    }

    /// A `where` entry: a field filter, or `{"or":[…]}` / `{"and":[…]}` of entries (composite filters).
    private static func condition(_ value: JSONValue) throws -> FilterTree {
        guard case .object(let object) = value, object.count == 1, let (key, children) = object.members.first,
            key == "or" || key == "and"
        else { return .filter(try filter(value)) }
        guard case .array(let entries) = children, !entries.isEmpty else {
            throw APIError.invalidQuery("'\(key)' takes a non-empty array of filters")
        }
        let conditions = try entries.map(condition)
        return key == "or" ? .or(conditions) : .and(conditions)
    }

    private static func filter(_ value: JSONValue) throws -> Filter {
        let body = try JSONBody(value, code: .invalidQuery, context: "a 'where' clause")
        try body.allowOnly(["field", "op", "value"], in: "a 'where' clause")
        guard let field = try body.string("field") else {
            throw APIError.invalidQuery("a 'where' clause needs 'field'")
        }
        guard let name = try body.string("op") else { throw APIError.invalidQuery("a 'where' clause needs 'op'") }
        guard let op = Filter.Operator(rawValue: name) else {
            let known = Filter.Operator.allCases.map(\.rawValue).joined(separator: " ")
            throw APIError.invalidQuery("unknown operator '\(name)'; use one of: \(known)")
        }
        guard let operand = body["value"] else { throw APIError.invalidQuery("a 'where' clause needs 'value'") }
        return Filter(try Self.field(field), op, operand)
    }

    private static func order(_ value: JSONValue) throws -> Order {
        let body = try JSONBody(value, code: .invalidQuery, context: "an 'orderBy' entry")
        try body.allowOnly(["field", "direction"], in: "an 'orderBy' entry")
        guard let field = try body.string("field") else {
            throw APIError.invalidQuery("'orderBy' entries need 'field'")
        }
        switch try body.string("direction")?.lowercased() {
        case nil, "asc", "ascending": return Order(try Self.field(field))
        case "desc", "descending": return Order(try Self.field(field), descending: true)
        case let other?: throw APIError.invalidQuery("direction '\(other)' must be 'asc' or 'desc'")
        }
    }

    private static func cursor(_ body: JSONBody, inclusive: String, exclusive: String) throws -> Cursor? {
        switch (try body.array(inclusive), try body.array(exclusive)) {
        case (nil, nil): return nil
        case (let values?, nil): return Cursor(values: values, inclusive: true)
        case (nil, let values?): return Cursor(values: values, inclusive: false)
        default: throw APIError.invalidQuery("use only one of '\(inclusive)' and '\(exclusive)'")
        }
    }
}

/// How many documents one page of a list or query may hold.
struct PageLimits: Sendable {
    var defaultPageSize = 100
    var maxPageSize = 1000
}
