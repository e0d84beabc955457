import KuraCore
import KuraModel
import KuraSQLite
import KuraStore

/// Turns a `NormalizedQuery` into one SQL statement over the index scheme described in `SQLiteSchema`.
/// Parameters are numbered (`?N`), so SQL text depends only on the query's shape and caches well.
struct SQLiteQueryPlan: StatementPlan {
    /// The statement selecting `d.id, d.data, d.ctime, d.utime, d.version, c.path` in order (and, over a
    /// composite index, `x.key`).
    private(set) var sql = ""
    /// The statement counting matches (cursors and limit apply).
    private(set) var countSQL = ""
    /// For a composite range: the statement selecting only `x.key`, in order (a merged count reads it).
    private(set) var keySQL = ""
    /// Parameter values, `?1` first.
    private(set) var bindings: [SQLiteValue] = []

    private let query: NormalizedQuery
    /// The field whose index drives the scan (`i0`), if the driver is an index rather than `docs`.
    private var driverField: FieldPath?
    /// An `==`/`array-contains` filter used as the driver when ordering by id only.
    private var driverFilter: Int?
    private var conditions: [String] = []
    /// Filters a composite index range already enforces.
    private var coveredFilters: Set<Int> = []
    /// The composite index walked, if any (alias `x`).
    private(set) var composite: CompositeScan?

    /// With `equalityDriver`, that `==`/`array-contains` filter's index range drives the scan and SQLite sorts
    /// its matches, instead of walking the first orderBy field's index (see `QueryDriver.equalityCandidate`).
    /// With `scanCounter`, every row the driver visits is counted (and past `budget`, the statement fails with
    /// `SQLiteScanCounter.exceeded`).
    init(_ query: NormalizedQuery, equalityDriver: Int? = nil, scanCounter: SQLiteScanCounter? = nil) throws {
        self.query = query
        if let equalityDriver {
            driverFilter = equalityDriver
        } else {
            (driverField, driverFilter) = QueryDriver.ordered(query)
        }
        let from = fromClause()
        try addSourceCondition()
        if let scanCounter { conditions.append(countCondition(scanCounter, row: usesIndexDriver ? "i0" : "d")) }
        try addFilterConditions()
        addCursorConditions()
        let keys = query.orders.enumerated().map { sortExpression($0.offset, $0.element) }
        for (position, order) in query.orders.enumerated() where position > 0 || driverField == nil {
            if case .field = order.field { conditions.append("\(keys[position]) IS NOT NULL") }
        }
        var orderTerms = zip(keys, query.orders).map { "\($0) \($1.descending ? "DESC" : "ASC")" }
        if case .collectionGroup = query.source {
            orderTerms.append("c.pkey \(query.orders.last?.descending == true ? "DESC" : "ASC")")
        }
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let limitClause = query.limit.map { " LIMIT \(param(.int(Int64($0))))" } ?? ""
        sql =
            "SELECT d.id, d.data, d.ctime, d.utime, d.version, c.path FROM \(from)\(whereClause) ORDER BY "
            + orderTerms.joined(separator: ", ") + limitClause
        countSQL = "SELECT count(*) FROM (SELECT 1 FROM \(from)\(whereClause)\(limitClause))"
    }

    /// SQL counting at most `cap` index entries of filter `index`: cheap, it reads only the index range.
    static func matchCountSQL(_ query: NormalizedQuery, filter index: Int, cap: Int) -> (String, [SQLiteValue]) {
        let filter = query.filters[index]
        guard case .field(let path) = filter.field else { return ("SELECT 0", []) }
        let kind = filter.op == .arrayContains ? SQLiteSchema.elementKind : SQLiteSchema.valueKind
        let source: String
        var bindings: [SQLiteValue]
        switch query.source {
        case .collection(let collection):
            source = "cid = (SELECT cid FROM collections WHERE path = ?1)"
            bindings = [.text(collection.description)]
        case .collectionGroup(let id):
            source = "cid IN (SELECT cid FROM collections WHERE group_id = ?1)"
            bindings = [.text(id)]
        }
        bindings += [.text(path.description), .int(kind), .blob(IndexKey.encode(filter.value)), .int(Int64(cap))]
        return (
            "SELECT count(*) FROM (SELECT 1 FROM idx WHERE \(source) AND field = ?2 AND kind = ?3 AND value = ?4 LIMIT ?5)",
            bindings
        )
    }

    /// A plan that walks one range of a composite index (`CompositeScan`): its keys are in the query's order, so
    /// the statement reads entries in order and stops at the limit; uncovered filters are checked per entry.
    init(_ query: NormalizedQuery, composite scan: CompositeScan, scanCounter: SQLiteScanCounter? = nil) throws {
        self.query = query
        composite = scan
        coveredFilters = Set(query.filters.indices).subtracting(scan.residual)
        let from =
            "cidx x CROSS JOIN docs d ON d.cid = x.cid AND d.id = x.id CROSS JOIN collections c ON c.cid = d.cid"
        // Collection-scope entries are filed under their collection's cid, collection-group ones under 0.
        if case .collection(let path) = query.source {
            conditions.append(
                "x.scope = (SELECT cid FROM collections WHERE path = \(param(.text(path.description))))")
        } else {
            conditions.append("x.scope = 0")
        }
        conditions.append("x.iid = \(param(.int(scan.indexID)))")
        for bound in scan.lowerBounds { conditions.append("x.key >= \(param(.blob(bound)))") }
        for bound in scan.upperBounds { conditions.append("x.key < \(param(.blob(bound)))") }
        if scan.isEmpty { conditions.append("0") }
        if let scanCounter { conditions.append(countCondition(scanCounter, row: "x")) }
        try addFilterConditions()
        let whereClause = " WHERE " + conditions.joined(separator: " AND ")
        let limitClause = query.limit.map { " LIMIT \(param(.int(Int64($0))))" } ?? ""
        let orderClause = " ORDER BY x.key " + (scan.reverse ? "DESC" : "ASC") + limitClause
        sql = "SELECT d.id, d.data, d.ctime, d.utime, d.version, c.path, x.key FROM \(from)\(whereClause)" + orderClause
        countSQL = "SELECT count(*) FROM (SELECT 1 FROM \(from)\(whereClause)\(limitClause))"
        keySQL = "SELECT x.key FROM \(from)\(whereClause)" + orderClause
    }

    /// The term that counts driver rows: first among the driver's own terms, so SQLite evaluates it on every row
    /// the driver visits.
    private mutating func countCondition(_ counter: SQLiteScanCounter, row: String) -> String {
        "kura_scan(\(param(.int(counter.handle))), \(param(.int(counter.budget))), \(row).id)"
    }

    /// What drives the scan, for `explain`.
    var driverDescription: String {
        QueryDriver.description(query, composite: composite, field: driverField, filter: driverFilter)
    }

    private mutating func param(_ value: SQLiteValue) -> String {
        bindings.append(value)
        return "?\(bindings.count)"
    }

    private var usesIndexDriver: Bool { driverField != nil || driverFilter != nil }

    private func fromClause() -> String {
        let docs = "docs d CROSS JOIN collections c ON c.cid = d.cid"
        return usesIndexDriver
            ? "idx i0 CROSS JOIN docs d ON d.cid = i0.cid AND d.id = i0.id CROSS JOIN collections c ON c.cid = d.cid"
            : docs
    }

    private mutating func addSourceCondition() throws {
        conditions.append(
            QueryConditions.source(query.source, column: usesIndexDriver ? "i0.cid" : "d.cid") { param(.text($0)) })
        let driver = QueryConditions.driver(
            query, field: driverField, filter: driverFilter, name: { param(.text($0)) }, encode: IndexKey.encode,
            key: { param(.blob($0)) })
        if let driver { conditions.append(driver) }
    }

    private mutating func addFilterConditions() throws {
        for (position, filter) in query.filters.enumerated()
        where position != driverFilter && !coveredFilters.contains(position) {
            switch filter.field {
            case .field(let path) where path == driverField && !filter.op.isArrayMembership:
                // The driver walks the field's whole-value rows; array membership is about its element rows.
                conditions.append(valueCondition("i0.value", filter))
            default:
                conditions.append(probe(filter))
            }
        }
        for tree in query.disjunctions { conditions.append(condition(tree)) }
    }

    /// A composite filter as one SQL condition: each field filter a `probe`.
    private mutating func condition(_ tree: FilterTree) -> String {
        switch tree {
        case .filter(let filter): return probe(filter)
        case .or(let children): return "(" + children.map { condition($0) }.joined(separator: " OR ") + ")"
        case .and(let children): return "(" + children.map { condition($0) }.joined(separator: " AND ") + ")"
        }
    }

    /// A filter checked on its own: an `EXISTS` probe of the field's index rows (a missing field has none, so it
    /// never matches), or a condition on the document's metadata columns.
    private mutating func probe(_ filter: Filter) -> String {
        guard case .field(let path) = filter.field else { return metadataCondition(filter) }
        let kind = filter.op.isArrayMembership ? SQLiteSchema.elementKind : SQLiteSchema.valueKind
        // Correlate with the driver's columns so the probe runs before the document row is fetched.
        let row = composite != nil ? "x" : usesIndexDriver ? "i0" : "d"
        return "EXISTS (SELECT 1 FROM idx e WHERE e.cid = \(row).cid AND e.field = \(param(.text(path.description)))"
            + " AND e.kind = \(kind) AND \(valueCondition("e.value", filter)) AND e.id = \(row).id)"
    }

    /// A condition on an encoded value column (`QueryConditions.value`).
    private mutating func valueCondition(_ column: String, _ filter: Filter) -> String {
        QueryConditions.value(column, filter, encode: IndexKey.encode) { param(.blob($0)) }
    }

    private mutating func metadataCondition(_ filter: Filter) -> String {
        QueryConditions.metadata(filter) { param(Self.metadataValue($0)) }
    }

    private static func metadataValue(_ value: JSONValue) -> SQLiteValue {
        switch value {
        case .int(let micros): .int(micros)
        case .string(let id): .text(id)
        default: .null
        }
    }

    private func sortExpression(_ position: Int, _ order: Order) -> String {
        switch order.field {
        case .id: usesIndexDriver ? "i0.id" : "d.id"
        case .createTime: "d.ctime"
        case .updateTime: "d.utime"
        case .field(let path):
            position == 0 && driverField == path
                ? "i0.value" : "kura_field(d.data, '\(path.description.replacingOccurrences(of: "'", with: "''"))')"
        }
    }

    /// The SQL key value of a cursor value for `order`.
    private static func keyValue(_ value: JSONValue, _ order: Order) -> SQLiteValue {
        if case .field = order.field { return .blob(IndexKey.encode(value)) }
        return metadataValue(value)
    }

    private mutating func addCursorConditions() {
        let keys = query.orders.enumerated().map { sortExpression($0.offset, $0.element) }
        let bounds = QueryCursorBound.bounds(
            of: query, keys: keys, pathKeyColumn: "c.pkey", keyValue: Self.keyValue,
            pathKey: { .blob(SQLiteRows.pathKey($0)) })
        for bound in bounds {
            // The plain bound on the first key lets SQLite seek the driver index to the cursor.
            let (firstKey, condition) = bound.sql(params: bound.values.map { param($0) }, true: "1", false: "0")
            conditions.append(firstKey)
            conditions.append(condition)
        }
    }
}

extension Filter.Operator {
    /// `array-contains` and `array-contains-any`: conditions on an array's elements, not on the field's value.
    fileprivate var isArrayMembership: Bool { self == .arrayContains || self == .arrayContainsAny }
}
