import Foundation

/// One aggregation of an `AggregateQuery`, as Firestore's iOS SDK names them.
public struct AggregateField: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case count
        case sum(String)
        case average(String)
    }
    let kind: Kind

    /// The number of matching documents.
    public static func count() -> AggregateField { AggregateField(kind: .count) }
    /// The sum of `field`'s numbers (an integer while every value is one and it fits in 64 bits).
    public static func sum(_ field: String) -> AggregateField { AggregateField(kind: .sum(field)) }
    /// The mean of `field`'s numbers (`nil` when no document has a number there).
    public static func average(_ field: String) -> AggregateField { AggregateField(kind: .average(field)) }

    var json: KuraValue {
        switch kind {
        case .count: ["count": .map([:])]
        case .sum(let field): ["sum": .string(field)]
        case .average(let field): ["average": .string(field)]
        }
    }
}

/// Where an aggregation is computed: only the server computes them.
public enum AggregateSource: Sendable {
    case server
}

/// Aggregations over a query's documents (`POST /api/query/aggregate`): `query.aggregate([.count(),
/// .sum("price")]).getAggregation(source: .server)`.
public struct AggregateQuery: Sendable {
    /// The query aggregated.
    public let query: Query
    /// The aggregations (at most five).
    public let aggregations: [AggregateField]

    /// Computes the aggregations on the server, under the security rules.
    public func getAggregation(source: AggregateSource = .server) async throws -> AggregateQuerySnapshot {
        if let invalidValue = query.invalidValue { throw invalidValue }
        guard case .map(var body) = try query.json(limit: query.limit) else {
            throw KuraError.invalidResponse("query body")
        }
        var spec: DocumentData = [:]
        for (index, field) in aggregations.enumerated() { spec["a\(index)"] = field.json }
        body["aggregate"] = .map(spec)
        let response = try await query.kura.call(APIRequest("POST", "/api/query/aggregate", body: .map(body)))
        guard let data = response.body?["data"] else { throw KuraError.invalidResponse("no aggregation data") }
        var values: [AggregateField: KuraValue] = [:]
        for (index, field) in aggregations.enumerated() { values[field] = data["a\(index)"] ?? .null }
        return AggregateQuerySnapshot(query: self, values: values)
    }
}

/// The results of an `AggregateQuery`.
public struct AggregateQuerySnapshot: Sendable {
    /// The aggregation query answered.
    public let query: AggregateQuery
    let values: [AggregateField: KuraValue]

    /// The value of `field`: an integer or a double, `.null` for the average of no numbers; `nil` when `field`
    /// was not asked for.
    public func get(_ field: AggregateField) -> KuraValue? { values[field] }

    /// The count, when `AggregateField.count()` was asked for.
    public var count: Int? { values[.count()]?.intValue }
}

extension Queryable {
    /// The aggregations `fields` over this query's documents.
    public func aggregate(_ fields: [AggregateField]) -> AggregateQuery {
        AggregateQuery(query: query, aggregations: fields)
    }
}
