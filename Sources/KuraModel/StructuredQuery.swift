/// A structured query over one collection or a collection group, Firestore style.
public struct StructuredQuery: Sendable, Equatable {
    /// Where documents come from.
    public enum Source: Sendable, Equatable {
        /// The documents directly in one collection.
        case collection(CollectionPath)
        /// Every collection with this collection ID, at any depth.
        case collectionGroup(String)

        /// Whether this is a collection group.
        public var isGroup: Bool {
            if case .collectionGroup = self { return true }
            return false
        }

        /// Same collection, or same collection ID by bytes (docs/api.md, "Identity").
        public static func == (lhs: Source, rhs: Source) -> Bool {
            switch (lhs, rhs) {
            case (.collection(let l), .collection(let r)): l == r
            case (.collectionGroup(let l), .collectionGroup(let r)): l.bytesEqual(r)
            default: false
            }
        }
    }

    /// The documents queried.
    public var source: Source
    /// All must match (AND).
    public var filters: [Filter]
    /// Composite filters (`or`/`and`, Firestore's), all of which must match too (AND with `filters`).
    public var composites: [FilterTree] = []
    /// Sort order; `normalized` adds Firestore's implicit orders.
    public var orderBy: [Order]
    /// Most documents returned.
    public var limit: Int?
    /// Where results start, as values for the orderBy fields (a prefix is allowed).
    public var start: Cursor?
    /// Where results end, as values for the orderBy fields (a prefix is allowed).
    public var end: Cursor?
    /// Fields returned (nil: all).
    public var select: [FieldPath]?
    /// Continues after the last document of a previous page (its `nextPageToken`).
    public var pageToken: String?
    /// The work the engine may spend on it (`nil`: no bound); shared by every round trip of one request.
    public var budget: QueryBudget?

    /// Creates a query.
    public init(
        _ source: Source, filters: [Filter] = [], orderBy: [Order] = [], limit: Int? = nil, start: Cursor? = nil,
        end: Cursor? = nil, select: [FieldPath]? = nil, pageToken: String? = nil
    ) {
        self.source = source
        self.filters = filters
        self.orderBy = orderBy
        self.limit = limit
        self.start = start
        self.end = end
        self.select = select
        self.pageToken = pageToken
    }

    /// The same query: everything but `budget` (what may be spent, not what is asked) is equal.
    public static func == (lhs: StructuredQuery, rhs: StructuredQuery) -> Bool {
        lhs.source == rhs.source && lhs.filters == rhs.filters && lhs.composites == rhs.composites
            && lhs.orderBy == rhs.orderBy && lhs.limit == rhs.limit && lhs.start == rhs.start && lhs.end == rhs.end
            && lhs.select == rhs.select && lhs.pageToken.map { Array($0.utf8) } == rhs.pageToken.map { Array($0.utf8) }
    }
}

/// What a filter or order refers to: a data field or one of the metadata fields.
public enum QueryField: Sendable, Hashable, CustomStringConvertible {
    /// The document ID (string).
    case id
    /// Creation time; filter values are RFC 3339 strings.
    case createTime
    /// Last update time; filter values are RFC 3339 strings.
    case updateTime
    /// A data field.
    case field(FieldPath)

    /// `id`, `createTime` and `updateTime` (and Firestore's `__name__`) name the metadata fields; anything
    /// else is a field path.
    public init(_ string: String) throws {
        switch string {
        case "id", "__name__": self = .id
        case "createTime": self = .createTime
        case "updateTime": self = .updateTime
        default: self = .field(try FieldPath(string))
        }
    }

    public var description: String {
        switch self {
        case .id: "id"
        case .createTime: "createTime"
        case .updateTime: "updateTime"
        case .field(let path):
            // A data field named like a metadata field is quoted, so that `QueryField(description)` reproduces it.
            if path.segments.count == 1, Self.metadataNames.contains(where: { $0.bytesEqual(path.segments[0]) }) {
                "`\(path.segments[0])`"
            } else {
                path.description
            }
        }
    }

    private static let metadataNames = ["id", "__name__", "createTime", "updateTime"]
}

/// One condition of a query.
public struct Filter: Sendable, Equatable {
    /// The comparison operators.
    public enum Operator: String, Sendable, CaseIterable {
        case equal = "=="
        case notEqual = "!="
        case lessThan = "<"
        case lessThanOrEqual = "<="
        case greaterThan = ">"
        case greaterThanOrEqual = ">="
        case `in` = "in"
        case notIn = "not-in"
        case arrayContains = "array-contains"
        case arrayContainsAny = "array-contains-any"

        /// Operators that constrain the field to a range (and so fix the first sort order).
        public var isInequality: Bool {
            switch self {
            case .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .notIn: true
            default: false
            }
        }
    }

    /// The field compared.
    public var field: QueryField
    /// The operator.
    public var op: Operator
    /// The operand (an array for `in`, `not-in` and `array-contains-any`).
    public var value: JSONValue

    /// Creates a filter.
    public init(_ field: QueryField, _ op: Operator, _ value: JSONValue) {
        self.field = field
        self.op = op
        self.value = value
    }
}

/// A condition of a query: one field filter, or a composite filter that holds when any (`or`) or every (`and`)
/// of its conditions holds, nested to any depth.
public indirect enum FilterTree: Sendable, Equatable {
    /// A field filter.
    case filter(Filter)
    /// Holds when any of the conditions holds.
    case or([FilterTree])
    /// Holds when every condition holds.
    case and([FilterTree])

    /// The field filters in it, depth first.
    public var leaves: [Filter] {
        switch self {
        case .filter(let filter): [filter]
        case .or(let children), .and(let children): children.flatMap(\.leaves)
        }
    }

    /// Conjunctions of its disjunctive normal form (saturating at `Int.max`): an `or` adds up its conditions',
    /// an `and` multiplies them, and an `in` or `array-contains-any` filter counts one per value.
    public var disjunctions: Int {
        switch self {
        case .filter(let filter):
            switch filter.op {
            case .in, .arrayContainsAny: return max(1, filter.value.arrayValue?.count ?? 1)
            default: return 1
            }
        case .or(let children):
            return children.reduce(0) { total, child in
                let (sum, overflow) = total.addingReportingOverflow(child.disjunctions)
                return overflow ? .max : sum
            }
        case .and(let children):
            return children.reduce(1) { total, child in
                let (product, overflow) = total.multipliedReportingOverflow(by: child.disjunctions)
                return overflow ? .max : product
            }
        }
    }

    /// The same tree with every field filter replaced by `transform`'s result.
    public func mapLeaves(_ transform: (Filter) throws -> Filter) rethrows -> FilterTree {
        switch self {
        case .filter(let filter): .filter(try transform(filter))
        case .or(let children): .or(try children.map { try $0.mapLeaves(transform) })
        case .and(let children): .and(try children.map { try $0.mapLeaves(transform) })
        }
    }
}

/// One sort key.
public struct Order: Sendable, Equatable {
    /// The field sorted on.
    public var field: QueryField
    /// `true` for descending.
    public var descending: Bool

    /// Creates a sort key.
    public init(_ field: QueryField, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }
}

/// A position in the sort order, given as values for the orderBy fields.
public struct Cursor: Sendable, Equatable {
    /// Values for the first `values.count` sort keys (an `id` key takes the document ID string).
    public var values: [JSONValue]
    /// For a start cursor: `startAt` (true) or `startAfter` (false). For an end cursor: `endAt` (true) or
    /// `endBefore` (false).
    public var inclusive: Bool

    /// Creates a cursor.
    public init(values: [JSONValue], inclusive: Bool) {
        self.values = values
        self.inclusive = inclusive
    }
}
