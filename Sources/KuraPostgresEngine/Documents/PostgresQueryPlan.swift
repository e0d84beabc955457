import KuraCore
import KuraModel
import KuraPostgres
import KuraStore

/// Turns a `NormalizedQuery` into one SQL statement over the index scheme of `PostgresDocumentSchema` (the SQLite
/// engine's `SQLiteQueryPlan`, in PostgreSQL's dialect): the first orderBy field's `idx` rows (or `docs`, or a
/// composite index range) drive the walk in order, other filters are `EXISTS` probes on `idx`'s primary key,
/// secondary orderBy keys are read from the documents' value keys (`docs.vkeys`), and the statement stops at the
/// limit.
///
/// Every parameter is typed (`bytea`, `int8`), so a statement may leave some unused: `examinedSQL` reuses the
/// bindings of the driver's own conditions.
struct PostgresQueryPlan: StatementPlan {
    /// The statement selecting `d.id, d.data, d.ctime, d.utime, d.version, c.path, <walk key>` in order.
    private(set) var sql = ""
    /// The statement counting matches (cursors and limit apply).
    private(set) var countSQL = ""
    /// For a composite range: the statement selecting only `x.key`, in order (a merged count reads it).
    private(set) var keySQL = ""
    /// Parameter values, `$1` first.
    var bindings: [PostgresValue] { parts.bindings }
    /// The composite index walked, if any (alias `x`).
    var composite: CompositeScan? { parts.composite }
    /// `sql` with the driver's walk cut after a budget of rows (bound after `bindings`), if the driver's order
    /// allows it (`scanOrder`).
    private var boundedSQL = ""

    /// The driver, the conditions and their parameters (`QuerySQL`).
    private var parts: QuerySQL<PostgresDialect>
    private var query: NormalizedQuery { parts.query }
    /// The driver's alias: `i0` (idx), `x` (cidx) or `d` (docs).
    private var row: String { parts.row }
    /// The conditions on the driver alone (what the walk visits), for counting rows examined.
    private var driverConditions: [String] = []
    private var driverFrom = ""
    /// Whether a sort key needs the document's row (its times), so it is joined before the limit.
    private var sortsByDocument = false
    /// Whether a filter or sort key needs the document's row, so it is joined before the limit.
    private var needsDocument: Bool { sortsByDocument || parts.readsDocument }
    /// The sort keys, with their directions.
    private var orderKeys: [(String, String)] = []
    /// The driver's index order, when it is the query's (`scanOrder(_:driverField:driverFilter:)`).
    private var scanOrder: String?
    /// The driver's first sort key, selected as the last column: the walk reaches every driver row up to it.
    private var walkKey: String?
    private var walkDescending = false
    /// Secondary orderBy fields looked up in the documents' value keys (`LATERAL`, alias `s<position>`).
    private var joins: [String] = []

    init(_ query: NormalizedQuery, equalityDriver: Int? = nil) throws {
        let (driverField, driverFilter) = equalityDriver.map { (nil, $0) } ?? QueryDriver.ordered(query)
        parts = QuerySQL(query, driverField: driverField, driverFilter: driverFilter)
        driverFrom = parts.usesIndexDriver ? "idx i0" : "docs d"
        driverConditions = parts.addDriverRange()
        driverConditions += parts.addFilters()
        addCursorConditions()
        let keys = query.orders.enumerated().map { sortExpression($0.offset, $0.element) }
        orderKeys = zip(keys, query.orders).map { ($0, $1.descending ? "DESC" : "ASC") }
        if case .collectionGroup = query.source {
            orderKeys.append(("c.pkey", query.orders.last?.descending == true ? "DESC" : "ASC"))
        }
        switch (driverField, driverFilter) {
        case (.some, _):
            walkKey = "i0.value"
            walkDescending = query.orders[0].descending
        case (nil, nil):
            walkKey = keys[0]
            walkDescending = query.orders[0].descending
        default:
            walkKey = nil  // the driver's range is read whole and sorted
        }
        scanOrder = Self.scanOrder(query, driverField: driverField, driverFilter: driverFilter)
        finish()
    }

    /// A plan that walks one range of a composite index (`CompositeScan`): its keys are in the query's order, so
    /// the statement reads entries in order and stops at the limit; uncovered filters are checked per entry.
    init(_ query: NormalizedQuery, composite scan: CompositeScan) throws {
        parts = QuerySQL(query, composite: scan)
        driverConditions = parts.addDriverRange()
        driverFrom = "cidx x"
        walkKey = "x.key"
        walkDescending = scan.reverse
        parts.addFilters()
        orderKeys = [("x.key", scan.reverse ? "DESC" : "ASC")]
        finish()
    }

    /// The driver's own index order, when it is exactly the query's order (one key and the ID, one direction, one
    /// collection): then a prefix of the walk is a prefix of the results, so the walk can be cut at a budget.
    private static func scanOrder(_ query: NormalizedQuery, driverField: FieldPath?, driverFilter: Int?) -> String? {
        guard case .collection = query.source, driverFilter == nil, let first = query.orders.first else { return nil }
        let direction = first.descending ? "DESC" : "ASC"
        if query.orders.count == 1, first.field == .id, driverField == nil { return "d.id \(direction)" }
        guard query.orders.count == 2, query.orders[1].field == .id, query.orders[1].descending == first.descending
        else { return nil }
        switch first.field {
        case .field: return driverField == nil ? nil : "i0.value \(direction), i0.id \(direction)"
        case .createTime: return "d.ctime \(direction), d.id \(direction)"
        case .updateTime: return "d.utime \(direction), d.id \(direction)"
        case .id: return nil
        }
    }

    /// Builds the statements. Their shape leaves PostgreSQL's planner one sensible plan, whatever its statistics
    /// say: the driver is the only table joined normally; documents, collections and secondary sort keys are
    /// `LATERAL` subqueries fenced with `OFFSET 0` (each one primary-key lookup per driver row, in a nested loop
    /// that keeps the driver's order), and filters are `EXISTS` probes fenced the same way (so they are never
    /// turned into a semi-join that reads a whole index range). When nothing but the driver and its lookups is
    /// needed to filter and sort (`needsDocument` false), the walk selects only keys, and the documents of the
    /// (at most `limit`) results are fetched after the limit.
    private mutating func finish() {
        // A prepared statement's limit is written out: with `LIMIT $n` PostgreSQL never settles on a generic plan
        // (it cannot cost an unknown limit) and plans every execution again.
        let limitClause =
            query.limit.map { prefersPrepared ? " LIMIT \($0)" : " LIMIT \(parts.param(.int(Int64($0))))" } ?? ""
        let budgetParameter = "$\(bindings.count + 1)"
        let grouped: Bool
        if case .collectionGroup = query.source { grouped = true } else { grouped = false }
        func documentLookup(_ alias: String) -> String {
            "CROSS JOIN LATERAL (SELECT d.cid, d.id, d.data, d.ctime, d.utime, d.version FROM docs d "
                + "WHERE d.cid = \(alias).cid AND d.id = \(alias).id OFFSET 0) d"
        }
        let inside = needsDocument || row == "d"
        var lookups: [String] = []
        if inside && row != "d" { lookups.append(documentLookup(row)) }
        if grouped {
            lookups.append(
                "CROSS JOIN LATERAL (SELECT c.path, c.pkey FROM collections c WHERE c.cid = \(row).cid OFFSET 0) c")
        }
        lookups += joins
        let driverSet = Set(driverConditions)
        let conditions = parts.conditions
        let outerConditions = conditions.filter { !driverSet.contains($0) }
        func from(bounded: Bool) -> String {
            var driver = driverFrom
            if bounded, let scanOrder {
                let whereClause =
                    driverConditions.isEmpty ? "" : " WHERE " + driverConditions.joined(separator: " AND ")
                driver =
                    "(SELECT * FROM \(driverFrom)\(whereClause) ORDER BY \(scanOrder) LIMIT \(budgetParameter)) \(row)"
            }
            return ([driver] + lookups).joined(separator: " ")
        }
        func whereClause(bounded: Bool) -> String {
            let list = bounded && scanOrder != nil ? outerConditions : conditions
            return list.isEmpty ? "" : " WHERE " + list.joined(separator: " AND ")
        }
        let orderBy = orderKeys.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        let path = grouped ? "c.path" : "NULL::bytea"
        let walk = walkKey ?? "NULL::bytea"
        func select(bounded: Bool) -> String {
            let tail =
                "FROM \(from(bounded: bounded))\(whereClause(bounded: bounded)) ORDER BY \(orderBy)\(limitClause)"
            if inside { return "SELECT d.id, d.data, d.ctime, d.utime, d.version, \(path), \(walk) \(tail)" }
            let keys = orderKeys.enumerated().map { "\($0.element.0) AS o\($0.offset)" }.joined(separator: ", ")
            let outerOrder = orderKeys.enumerated().map { "w.o\($0.offset) \($0.element.1)" }
            return "SELECT d.id, d.data, d.ctime, d.utime, d.version, w.path, w.walk FROM "
                + "(SELECT \(row).cid AS cid, \(row).id AS id, \(path) AS path, \(walk) AS walk, \(keys) \(tail)) w "
                + documentLookup("w") + " ORDER BY "
                + outerOrder.joined(separator: ", ")
        }
        sql = select(bounded: false)
        countSQL =
            "SELECT count(*) FROM (SELECT 1 FROM \(from(bounded: false))\(whereClause(bounded: false))"
            + "\(limitClause)) AS matches"
        if scanOrder != nil { boundedSQL = select(bounded: true) }
        if composite != nil {
            keySQL =
                "SELECT x.key FROM \(from(bounded: false))\(whereClause(bounded: false)) ORDER BY \(orderBy)"
                + limitClause
        }
    }

    /// Limits up to which a composite plan is prepared (each limit is a statement of its own, so the number a
    /// connection keeps stays small).
    static let preparedLimits = 0...100

    /// Whether the statements should be prepared: a composite range's plan is the same for any values (one
    /// primary-key range of `cidx`, then lookups), and parsing and planning it cost about as much as running it.
    var prefersPrepared: Bool {
        composite != nil && query.limit.map(Self.preparedLimits.contains) ?? true
    }

    /// The statement selecting the results; with `budget` (and a driver whose walk can be cut), the walk reads at
    /// most `budget` driver rows, so a query the missing-index rule refuses stops early instead of reading on.
    func select(budget: Int64?) -> (String, [PostgresValue]) {
        guard let budget, !boundedSQL.isEmpty else { return (sql, bindings) }
        return (boundedSQL, bindings + [.int(budget)])
    }

    /// The statement counting the rows the walk examined (at most `cap`), with its bindings: the driver's rows in
    /// its range, up to `last` (the walk key of the last row returned, when the query stopped at its limit).
    func examinedSQL(last: PostgresValue?, cap: Int64) -> (String, [PostgresValue]) {
        var bindings = self.bindings
        var conditions = driverConditions
        if let last, let walkKey {
            bindings.append(last)
            let op = walkDescending ? ">=" : "<="
            conditions.append("\(walkKey) \(op) $\(bindings.count)")
        }
        bindings.append(.int(cap))
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return (
            "SELECT count(*) FROM (SELECT 1 FROM \(driverFrom)\(whereClause) LIMIT $\(bindings.count)) AS walked",
            bindings
        )
    }

    /// SQL counting at most `cap` index entries of filter `index`: cheap, it reads only the index range.
    static func matchCountSQL(_ query: NormalizedQuery, filter index: Int, cap: Int) -> (String, [PostgresValue]) {
        QuerySQL<PostgresDialect>.matchCount(query, filter: index, cap: cap)
    }

    /// What drives the scan, for `explain`.
    var driverDescription: String { parts.driverDescription }

    /// The SQL expression of sort key `position`; a data field other than the driver's is joined from `idx`
    /// (an inner join: documents without the field are not results, as Firestore has it).
    private mutating func sortExpression(_ position: Int, _ order: Order) -> String {
        switch order.field {
        case .id: return parts.usesIndexDriver ? "i0.id" : "d.id"
        case .createTime, .updateTime:
            sortsByDocument = true
            return order.field == .createTime ? "d.ctime" : "d.utime"
        case .field(let path):
            if position == 0 && parts.driverField == path { return "i0.value" }
            let alias = "s\(position)"
            if !joins.contains(where: { $0.hasSuffix(") \(alias)") }) {
                // The document's value keys (PostgresDocumentSchema): its own row when the walk is over `docs`,
                // else one lookup by its unique key. A document without the field has no key and drops out, as it
                // does from an orderBy.
                let field = parts.param(PostgresRows.name(path.description))
                let keys = row == "d" ? "d" : alias
                var lookup = ["\(field) = ANY(\(keys).vfields)"]
                if row != "d" { lookup = ["\(alias).cid = \(row).cid", "\(alias).id = \(row).id"] + lookup }
                joins.append(
                    "CROSS JOIN LATERAL (SELECT \(keys).vkeys[array_position(\(keys).vfields, \(field))] AS value"
                        + (row == "d" ? "" : " FROM docs \(alias)") + " WHERE " + lookup.joined(separator: " AND ")
                        + " OFFSET 0) \(alias)")
            }
            return "\(alias).value"
        }
    }

    private mutating func addCursorConditions() {
        let keys = query.orders.enumerated().map { sortExpression($0.offset, $0.element) }
        for bound in parts.cursorBounds(keys: keys) {
            // The plain bound on the first key lets the driver's index scan start at the cursor (and, on the
            // driver's own columns, bounds the rows the walk examines).
            parts.conditions += [bound.firstKey, bound.condition]
            if keys[0].hasPrefix("i0.") || (!parts.usesIndexDriver && keys[0].hasPrefix("d.")) {
                driverConditions.append(bound.firstKey)
            }
        }
    }
}

/// PostgreSQL's side of the shared query SQL: `$N` parameters, names and keys as `bytea` (keys cut as `idx`
/// stores them), `OFFSET 0` fencing each probe.
enum PostgresDialect: QuerySQLDialect {
    static func placeholder(_ position: Int) -> String { "$\(position)" }
    static func name(_ text: String) -> PostgresValue { PostgresRows.name(text) }
    static func key(_ bytes: [UInt8]) -> PostgresValue { .bytes(bytes) }
    static func int(_ value: Int64) -> PostgresValue { .int(value) }
    static var null: PostgresValue { .null }
    static func indexKey(_ value: JSONValue) -> [UInt8] { PostgresRows.indexKey(value) }
    static var trueLiteral: String { "true" }
    static var falseLiteral: String { "false" }
    static var probeFence: String { " OFFSET 0" }
}
