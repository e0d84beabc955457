/// The work one query may do (`query.maxWork`, docs/api.md "Query limits"), in work units: every document an
/// engine examines costs `perDocument` units (one, plus one per `bytesPerUnit` bytes of the query's filter
/// operands, which each examined document may be compared with), and every `list` rule evaluated on a document
/// costs `ruleEvaluation` units. One budget spans every store round trip of one request, so a query whose
/// results the rules filter cannot make up for refused documents by asking again.
///
/// Used by one thread at a time (the worker running the request), hence `@unchecked Sendable`.
public final class QueryBudget: @unchecked Sendable {
    /// Units the query may spend.
    public let limit: Int64
    /// Units spent so far.
    public private(set) var spent: Int64 = 0

    /// Bytes of filter operands that cost one more unit per document examined.
    public static let bytesPerUnit = 1024
    /// Units one evaluation of the security rules on one document costs.
    public static let ruleEvaluation: Int64 = 2

    /// A budget of `limit` units.
    public init(limit: Int64) { self.limit = max(0, limit) }

    /// Adds `units`; `false` once more than `limit` is spent.
    @discardableResult
    public func charge(_ units: Int64) -> Bool {
        spent = spent.addingReportingOverflow(max(0, units)).overflow ? .max : spent + max(0, units)
        return spent <= limit
    }

    /// Whether more than `limit` is spent.
    public var isExhausted: Bool { spent > limit }

    /// Documents at `perDocument` units each that still fit.
    public func documentsLeft(perDocument: Int64) -> Int64 { max(0, limit - spent) / max(1, perDocument) }

    /// Units one document examined by `query` costs: 1 plus one per `bytesPerUnit` bytes of its filter operands.
    public static func perDocument(_ query: NormalizedQuery) -> Int64 {
        1 + Int64(filterBytes(query.filters + query.disjunctions.flatMap(\.leaves)) / bytesPerUnit)
    }

    /// The JSON bytes of the operands of `filters`.
    public static func filterBytes(_ filters: [Filter]) -> Int {
        filters.reduce(0) { $0 + $1.value.jsonBytes.count }
    }
}
