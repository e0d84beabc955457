import KuraCore
import KuraModel

/// The body of `POST /api/query/aggregate`: a query (`QueryDecoding`, counted without a default limit) plus
/// `"aggregate": {"<alias>": {"count":{}} | {"sum":"<field>"} | {"average":"<field>"}}`. Mistakes are 400
/// `INVALID_QUERY`; more aliases than `query.maxAggregations` is 400 `INVALID_ARGUMENT`.
enum AggregateDecoding {
    static func decode(
        _ value: JSONValue, limits: PageLimits, queryLimits: QueryLimits
    ) throws -> (StructuredQuery, [(alias: String, aggregation: Aggregation)]) {
        guard case .object(var body) = value else { throw APIError.invalidQuery("the body must be a JSON object") }
        guard case .object(let spec)? = body["aggregate"] else {
            throw APIError.invalidQuery("an aggregation needs 'aggregate', an object of aliases")
        }
        body["aggregate"] = nil
        let query = try QueryDecoding.decode(.object(body), limits: limits, queryLimits: queryLimits, paged: false)
        guard !spec.isEmpty else { throw APIError.invalidQuery("'aggregate' needs at least one alias") }
        guard spec.count <= queryLimits.maxAggregations else {
            throw APIError.badRequest(
                "at most \(queryLimits.maxAggregations) aggregations are allowed, not \(spec.count) "
                    + "(query.maxAggregations)")
        }
        let aggregations = try spec.members.map { member in
            (alias: try alias(member.key), aggregation: try aggregation(member.value, alias: member.key))
        }
        return (query, aggregations)
    }

    /// `[A-Za-z_][A-Za-z0-9_]*`, at most 1500 bytes (Firestore's alias rule).
    private static func alias(_ name: String) throws -> String {
        let bytes = Array(name.utf8)
        func letter(_ b: UInt8) -> Bool { (65...90).contains(b) || (97...122).contains(b) || b == 95 }
        guard let first = bytes.first, letter(first), bytes.count <= 1500,
            bytes.allSatisfy({ letter($0) || (48...57).contains($0) })
        else {
            throw APIError.invalidQuery(
                "aggregation alias '\(name.prefix(100))' must be a letter or _ followed by letters, digits or _")
        }
        return name
    }

    private static func aggregation(_ value: JSONValue, alias: String) throws -> Aggregation {
        let usage = "aggregation '\(alias)' must be {\"count\":{}}, {\"sum\":\"field\"} or {\"average\":\"field\"}"
        guard case .object(let object) = value, object.count == 1, let (kind, operand) = object.members.first else {
            throw APIError.invalidQuery(usage)
        }
        switch kind {
        case "count":
            guard case .object(let empty) = operand, empty.isEmpty else { throw APIError.invalidQuery(usage) }
            return .count
        case "sum", "average":
            guard case .string(let name) = operand else { throw APIError.invalidQuery(usage) }
            guard case .field(let path) = try QueryDecoding.field(name) else {
                throw APIError.invalidQuery("aggregation '\(alias)': \(kind) takes a data field, not \(name)")
            }
            return kind == "sum" ? .sum(path) : .average(path)
        default:
            throw APIError.invalidQuery(usage)
        }
    }
}
