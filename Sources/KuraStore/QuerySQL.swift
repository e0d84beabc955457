import KuraModel

/// An engine's SQL dialect, as far as the parts of a query plan both engines share need it (`QuerySQL`).
package protocol QuerySQLDialect {
    /// The engine's parameter value.
    associatedtype Value
    /// The placeholder of parameter `position` (the first is 1): `?1` or `$1`.
    static func placeholder(_ position: Int) -> String
    /// A collection path or ID, a document ID or a field path.
    static func name(_ text: String) -> Value
    /// An encoded key (`IndexKey`, a collection path key).
    static func key(_ bytes: [UInt8]) -> Value
    static func int(_ value: Int64) -> Value
    static var null: Value { get }
    /// A value's index key as the engine's `idx` stores it (`IndexKey.encode`, possibly cut).
    static func indexKey(_ value: JSONValue) -> [UInt8]
    /// The dialect's boolean literals.
    static var trueLiteral: String { get }
    static var falseLiteral: String { get }
    /// What closes an `EXISTS` probe's subquery: PostgreSQL's `OFFSET 0` fence keeps it a probe per driver row.
    static var probeFence: String { get }
}

/// The parts of a query plan's SQL that mean the same in every engine's schema (`docs` as `d`, the single-field
/// index `idx` as `i0`, a composite index `cidx` as `x`, encoded index values compared as bytes): the query's
/// source, the driver's range, the filters, the cursors, and the parameters they bind. Each engine's plan
/// (`SQLiteQueryPlan`, `PostgresQueryPlan`) builds its statements (joins, sort keys, limit) around these
/// conditions; only its `Dialect` and what it adds differ.
package struct QuerySQL<Dialect: QuerySQLDialect> {
    package let query: NormalizedQuery
    /// The field whose index drives the scan (`i0`), if the driver is an index rather than `docs`.
    package let driverField: FieldPath?
    /// An `==`/`array-contains` filter used as the driver (when ordering by ID only, or chosen for a rare value).
    package let driverFilter: Int?
    /// The composite index range walked, if any (`x`).
    package let composite: CompositeScan?
    /// The alias of the rows the walk visits: `x`, `i0` or `d`.
    package let row: String
    /// The conditions, `AND`ed.
    package var conditions: [String] = []
    /// Parameter values, the first one first.
    package private(set) var bindings: [Dialect.Value] = []
    /// Whether a condition reads the document's own columns (`d.id`, `d.ctime`, `d.utime`).
    package private(set) var readsDocument = false
    /// Filters a composite index range already enforces.
    private let coveredFilters: Set<Int>

    /// The parts of a plan driven by `idx` (`driverField` or `driverFilter`) or, with neither, by `docs`.
    package init(_ query: NormalizedQuery, driverField: FieldPath?, driverFilter: Int?) {
        self.query = query
        self.driverField = driverField
        self.driverFilter = driverFilter
        composite = nil
        coveredFilters = []
        row = driverField != nil || driverFilter != nil ? "i0" : "d"
    }

    /// The parts of a plan walking one range of a composite index.
    package init(_ query: NormalizedQuery, composite scan: CompositeScan) {
        self.query = query
        driverField = nil
        driverFilter = nil
        composite = scan
        coveredFilters = Set(query.filters.indices).subtracting(scan.residual)
        row = "x"
    }

    /// Whether `idx` rows drive the walk.
    package var usesIndexDriver: Bool { row == "i0" }

    /// What drives the scan, for `explain`.
    package var driverDescription: String {
        QueryDriver.description(query, composite: composite, field: driverField, filter: driverFilter)
    }

    /// Binds `value` and returns its placeholder.
    package mutating func param(_ value: Dialect.Value) -> String {
        bindings.append(value)
        return Dialect.placeholder(bindings.count)
    }

    /// The driver's own range: the query's source and, for `idx`, the driver field's or filter's rows; for a
    /// composite index, the range's scope, index and bounds. Returns the conditions added.
    @discardableResult
    package mutating func addDriverRange() -> [String] {
        let start = conditions.count
        if let scan = composite {
            // Collection-scope entries are filed under their collection's cid, collection-group ones under 0.
            if case .collection(let path) = query.source {
                let name = param(Dialect.name(path.description))
                conditions.append("x.scope = coalesce((SELECT cid FROM collections WHERE path = \(name)), -1)")
            } else {
                conditions.append("x.scope = 0")
            }
            conditions.append("x.iid = \(param(Dialect.int(scan.indexID)))")
            for bound in scan.lowerBounds { conditions.append("x.key >= \(param(Dialect.key(bound)))") }
            for bound in scan.upperBounds { conditions.append("x.key < \(param(Dialect.key(bound)))") }
            if scan.isEmpty { conditions.append(Dialect.falseLiteral) }
        } else {
            conditions.append(sourceCondition(column: "\(row).cid"))
            if let driver = driverCondition() { conditions.append(driver) }
        }
        return Array(conditions[start...])
    }

    /// The filters the driver's range does not enforce, and the query's disjunctions. Returns the conditions on
    /// the driver's own rows (a range on the driver field's `i0.value`).
    @discardableResult
    package mutating func addFilters() -> [String] {
        var onDriver: [String] = []
        for (position, filter) in query.filters.enumerated()
        where position != driverFilter && !coveredFilters.contains(position) {
            switch filter.field {
            case .field(let path) where path == driverField && !filter.op.isArrayMembership:
                // The driver walks the field's whole-value rows; array membership is about its element rows.
                let condition = valueCondition("i0.value", filter)
                conditions.append(condition)
                onDriver.append(condition)
            default:
                conditions.append(probe(filter))
            }
        }
        for tree in query.disjunctions { conditions.append(condition(tree)) }
        return onDriver
    }

    /// The bounds of the query's cursors on its sort keys (`keys`, their SQL expressions): per bound, a plain
    /// bound on the first key, with which an index scan seeks to the cursor, and the whole bound.
    package mutating func cursorBounds(keys: [String]) -> [(firstKey: String, condition: String)] {
        let bounds = QueryCursorBound.bounds(
            of: query, keys: keys, pathKeyColumn: "c.pkey", keyValue: Self.keyValue,
            pathKey: { Dialect.key(IndexKey.pathKey($0)) })
        return bounds.map { bound in
            bound.sql(
                params: bound.values.map { param($0) }, true: Dialect.trueLiteral, false: Dialect.falseLiteral)
        }
    }

    /// SQL counting at most `cap` index entries of filter `index`: cheap, it reads only the index range.
    package static func matchCount(_ query: NormalizedQuery, filter index: Int, cap: Int) -> (String, [Dialect.Value]) {
        var parts = QuerySQL(query, driverField: nil, driverFilter: index)
        guard let driver = parts.driverCondition() else {
            return ("SELECT count(*) FROM idx WHERE \(Dialect.falseLiteral)", [])
        }
        let source = parts.sourceCondition(column: "i0.cid")
        return (
            "SELECT count(*) FROM (SELECT 1 FROM idx i0 WHERE \(source) AND \(driver) "
                + "LIMIT \(parts.param(Dialect.int(Int64(cap))))) AS matches",
            parts.bindings
        )
    }

    /// The query's source on a cid `column`: the collection's cid, or one of the collection group's.
    private mutating func sourceCondition(column: String) -> String {
        switch query.source {
        case .collection(let path):
            "\(column) = (SELECT cid FROM collections WHERE path = \(param(Dialect.name(path.description))))"
        case .collectionGroup(let id):
            "\(column) IN (SELECT cid FROM collections WHERE group_id = \(param(Dialect.name(id))))"
        }
    }

    /// The `idx` rows (`i0`) that drive the walk (`QueryDriver`): the driver field's whole-value rows, or the rows
    /// of the driver filter's value (element rows for `array-contains`); `nil` when `docs` drives.
    private mutating func driverCondition() -> String? {
        if let driverField {
            return "i0.field = \(param(Dialect.name(driverField.description))) AND i0.kind = \(IndexEntry.valueKind)"
        }
        guard let driverFilter, case .field(let path) = query.filters[driverFilter].field else { return nil }
        let filter = query.filters[driverFilter]
        let kind = filter.op == .arrayContains ? IndexEntry.elementKind : IndexEntry.valueKind
        return "i0.field = \(param(Dialect.name(path.description))) AND i0.kind = \(kind) AND i0.value = "
            + param(Dialect.key(Dialect.indexKey(filter.value)))
    }

    /// A composite filter as one SQL condition: each field filter a `probe`.
    private mutating func condition(_ tree: FilterTree) -> String {
        switch tree {
        case .filter(let filter): return probe(filter)
        case .or(let children): return "(" + children.map { condition($0) }.joined(separator: " OR ") + ")"
        case .and(let children): return "(" + children.map { condition($0) }.joined(separator: " AND ") + ")"
        }
    }

    /// A filter checked on its own: an `EXISTS` probe of the field's `idx` rows, correlated with the driver's row
    /// so it runs before the document is fetched (a missing field has no rows, so it never matches), or a
    /// condition on the document's own columns.
    private mutating func probe(_ filter: Filter) -> String {
        guard case .field(let path) = filter.field else { return metadataCondition(filter) }
        let kind = filter.op.isArrayMembership ? IndexEntry.elementKind : IndexEntry.valueKind
        return "EXISTS (SELECT 1 FROM idx e WHERE e.cid = \(row).cid AND e.field = "
            + "\(param(Dialect.name(path.description))) AND e.kind = \(kind) AND "
            + "\(valueCondition("e.value", filter)) AND e.id = \(row).id\(Dialect.probeFence))"
    }

    /// A filter on an encoded value column (`IndexKey` order). Range operators only match the operand's own type.
    private mutating func valueCondition(_ column: String, _ filter: Filter) -> String {
        let operand = param(Dialect.key(Dialect.indexKey(filter.value)))
        switch filter.op {
        case .equal, .arrayContains: return "\(column) = \(operand)"
        case .notEqual: return "\(column) <> \(operand)"
        case .lessThan, .lessThanOrEqual:
            let op = filter.op == .lessThan ? "<" : "<="
            return "\(column) \(op) \(operand) AND \(column) >= "
                + param(Dialect.key(IndexKey.typeLowerBound(filter.value)))
        case .greaterThan, .greaterThanOrEqual:
            let op = filter.op == .greaterThan ? ">" : ">="
            return "\(column) \(op) \(operand) AND \(column) < "
                + param(Dialect.key(IndexKey.typeUpperBound(filter.value)))
        case .in, .arrayContainsAny, .notIn:
            let list = (filter.value.arrayValue ?? []).map { param(Dialect.key(Dialect.indexKey($0))) }
            return "\(column) \(filter.op == .notIn ? "NOT IN" : "IN") (\(list.joined(separator: ", ")))"
        }
    }

    /// A filter on a document's ID or times (`d.id`, `d.ctime`, `d.utime`).
    private mutating func metadataCondition(_ filter: Filter) -> String {
        readsDocument = true
        let column =
            switch filter.field {
            case .createTime: "d.ctime"
            case .updateTime: "d.utime"
            default: "d.id"
            }
        switch filter.op {
        case .in, .notIn:
            let list = (filter.value.arrayValue ?? []).map { param(Self.metadataValue($0)) }
            return "\(column) \(filter.op == .notIn ? "NOT IN" : "IN") (\(list.joined(separator: ", ")))"
        default:
            let op = filter.op == .equal ? "=" : filter.op == .notEqual ? "<>" : filter.op.rawValue
            return "\(column) \(op) \(param(Self.metadataValue(filter.value)))"
        }
    }

    /// A value compared with a document's ID (a string) or times (microseconds).
    private static func metadataValue(_ value: JSONValue) -> Dialect.Value {
        switch value {
        case .int(let micros): Dialect.int(micros)
        case .string(let id): Dialect.name(id)
        default: Dialect.null
        }
    }

    /// The SQL value of a cursor's value for the sort key `order`.
    private static func keyValue(_ value: JSONValue, _ order: Order) -> Dialect.Value {
        if case .field = order.field { return Dialect.key(Dialect.indexKey(value)) }
        return metadataValue(value)
    }
}

extension Filter.Operator {
    /// `array-contains` and `array-contains-any`: conditions on an array's elements, not on the field's value.
    fileprivate var isArrayMembership: Bool { self == .arrayContains || self == .arrayContainsAny }
}
