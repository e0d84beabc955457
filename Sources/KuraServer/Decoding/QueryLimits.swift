import KuraCore
import KuraModel

/// What one query may ask for and cost (`query.*`, docs/configuration.md; docs/api.md "Query limits").
struct QueryLimits: Sendable {
    /// Most values of an `in`, `not-in` or `array-contains-any` filter (Firestore's limit, the most allowed).
    var maxDisjunctionValues = NormalizedQuery.maxDisjunction
    /// Most JSON bytes of one filter value (each value of an `in`, `not-in` or `array-contains-any` list counts
    /// alone): Firestore's limit on an indexed value.
    var maxFilterValueBytes = 1500
    /// Most JSON bytes of all of a query's filter values together.
    var maxFilterBytes = 16_384
    /// Most conjunctions in the disjunctive normal form of a query with `or` filters (Firestore's limit), where
    /// an `in` or `array-contains-any` filter counts one per value.
    var maxFilterDisjunctions = 30
    /// Most aliases of one aggregation query (Firestore's limit).
    var maxAggregations = 5
    /// Work units one query of a caller other than the administrator may spend (`QueryBudget`); 0: no bound.
    var maxWork: Int64 = 1_000_000
    /// Queries one caller may run on the worker pool at once; 0: max(2, http.workerThreads / 4).
    var maxConcurrentPerCaller = 0

    /// A fresh budget for one request, `nil` when unbounded.
    func budget() -> QueryBudget? { maxWork > 0 ? QueryBudget(limit: maxWork) : nil }

    /// Throws 400 `INVALID_ARGUMENT` naming the limit and its setting when `filters` and the composite filters
    /// `composites` (their field filters count like the others) ask for more than these limits allow.
    func check(_ filters: [Filter], _ composites: [FilterTree] = []) throws {
        try check(filters + composites.flatMap(\.leaves))
        guard composites.contains(where: { $0.hasOr }) else { return }
        let conjunctions = FilterTree.and(filters.map(FilterTree.filter) + composites).disjunctions
        guard conjunctions <= maxFilterDisjunctions else {
            throw APIError.badRequest(
                "the query's filters are \(conjunctions == .max ? "too many" : "\(conjunctions)") disjunctions in "
                    + "disjunctive normal form (each value of an in or array-contains-any filter counts); at most "
                    + "\(maxFilterDisjunctions) are allowed (query.maxFilterDisjunctions)")
        }
    }

    private func check(_ filters: [Filter]) throws {
        var total = 0
        for filter in filters {
            let values: [JSONValue]
            switch filter.op {
            case .in, .notIn, .arrayContainsAny:
                guard let list = filter.value.arrayValue else {
                    throw APIError.invalidQuery("\(filter.op.rawValue) needs an array of values")
                }
                guard list.count <= maxDisjunctionValues else {
                    throw APIError.badRequest(
                        "'\(filter.op.rawValue)' takes at most \(maxDisjunctionValues) values, not \(list.count) "
                            + "(query.maxDisjunctionValues)")
                }
                values = list
            default:
                values = [filter.value]
            }
            for value in values {
                let size = value.jsonBytes.count
                guard size <= maxFilterValueBytes else {
                    throw APIError.badRequest(
                        "a filter value on '\(filter.field)' is \(size) bytes of JSON; at most \(maxFilterValueBytes) "
                            + "are allowed (query.maxFilterValueBytes)")
                }
                total += size
            }
            guard total <= maxFilterBytes else {
                throw APIError.badRequest(
                    "the query's filter values hold more than \(maxFilterBytes) bytes of JSON "
                        + "(query.maxFilterBytes)")
            }
        }
    }
}

extension FilterTree {
    /// Whether an `or` is in it.
    fileprivate var hasOr: Bool {
        switch self {
        case .filter: false
        case .or: true
        case .and(let children): children.contains { $0.hasOr }
        }
    }
}
