import KuraCore
import KuraModel
import KuraStore

/// The query of `POST /api/query` (and counts, aggregations and realtime listeners) as the server takes it: the
/// wire format is KuraModel's (`StructuredQuery(json:)`, shared with the Swift SDK); this adds the server's
/// settings, the page size (`docs.*`) and the limits on filters (`query.*`). Every mistake is 400 `INVALID_QUERY`
/// (`INVALID_PATH` for the source), a filter past `queryLimits` 400 `INVALID_ARGUMENT`.
enum QueryDecoding {
    /// With `paged` (queries), a query without `limit` gets the default page size; counts (`paged: false`) count
    /// everything that matches unless a limit is given.
    static func decode(
        _ value: JSONValue, limits: PageLimits, queryLimits: QueryLimits = QueryLimits(), paged: Bool = true
    ) throws -> StructuredQuery {
        var query: StructuredQuery
        do {
            query = try StructuredQuery(json: value) { try queryLimits.check($0, $1) }
        } catch let error as ValidationError {
            throw APIError(error)
        }
        let asked = query.limit.map { Int64($0) }
        query.limit = paged || asked != nil ? try limit(asked, limits) : nil
        return query
    }

    /// A field name in a query; a malformed field path is 400 `INVALID_QUERY` like every other query mistake.
    static func field(_ name: String) throws -> QueryField { try QueryField(queryName: name) }

    /// The effective limit: the asked one within `1...maxPageSize`, else the default page size.
    static func limit(_ asked: Int64?, _ limits: PageLimits) throws -> Int {
        guard let asked else { return limits.defaultPageSize }
        guard asked >= 1, asked <= Int64(limits.maxPageSize) else {
            throw APIError.invalidQuery("'limit' must be between 1 and \(limits.maxPageSize)")
        }
        return Int(asked)
    }
}

/// How many documents one page of a list or query may hold.
struct PageLimits: Sendable {
    var defaultPageSize = 100
    var maxPageSize = 1000
}
