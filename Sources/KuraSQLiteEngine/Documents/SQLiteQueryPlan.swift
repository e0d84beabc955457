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
    var bindings: [SQLiteValue] { parts.bindings }
    /// The composite index walked, if any (alias `x`).
    var composite: CompositeScan? { parts.composite }

    /// The driver, the conditions and their parameters (`QuerySQL`).
    private var parts: QuerySQL<SQLiteDialect>

    /// With `equalityDriver`, that `==`/`array-contains` filter's index range drives the scan and SQLite sorts
    /// its matches, instead of walking the first orderBy field's index (see `QueryDriver.equalityCandidate`).
    /// With `scanCounter`, every row the driver visits is counted (and past `budget`, the statement fails with
    /// `SQLiteScanCounter.exceeded`).
    init(_ query: NormalizedQuery, equalityDriver: Int? = nil, scanCounter: SQLiteScanCounter? = nil) throws {
        let (field, filter) = equalityDriver.map { (nil, $0) } ?? QueryDriver.ordered(query)
        parts = QuerySQL(query, driverField: field, driverFilter: filter)
        let from =
            parts.usesIndexDriver
            ? "idx i0 CROSS JOIN docs d ON d.cid = i0.cid AND d.id = i0.id CROSS JOIN collections c ON c.cid = d.cid"
            : "docs d CROSS JOIN collections c ON c.cid = d.cid"
        parts.addDriverRange()
        if let scanCounter { addCountCondition(scanCounter) }
        parts.addFilters()
        let keys = query.orders.enumerated().map { sortExpression($0.offset, $0.element) }
        for bound in parts.cursorBounds(keys: keys) {
            // The plain bound on the first key lets SQLite seek the driver index to the cursor.
            parts.conditions += [bound.firstKey, bound.condition]
        }
        for (position, order) in query.orders.enumerated() where position > 0 || field == nil {
            if case .field = order.field { parts.conditions.append("\(keys[position]) IS NOT NULL") }
        }
        var orderTerms = zip(keys, query.orders).map { "\($0) \($1.descending ? "DESC" : "ASC")" }
        if case .collectionGroup = query.source {
            orderTerms.append("c.pkey \(query.orders.last?.descending == true ? "DESC" : "ASC")")
        }
        let whereClause = parts.conditions.isEmpty ? "" : " WHERE " + parts.conditions.joined(separator: " AND ")
        let limitClause = query.limit.map { " LIMIT \(parts.param(.int(Int64($0))))" } ?? ""
        sql =
            "SELECT d.id, d.data, d.ctime, d.utime, d.version, c.path FROM \(from)\(whereClause) ORDER BY "
            + orderTerms.joined(separator: ", ") + limitClause
        countSQL = "SELECT count(*) FROM (SELECT 1 FROM \(from)\(whereClause)\(limitClause))"
    }

    /// SQL counting at most `cap` index entries of filter `index`: cheap, it reads only the index range.
    static func matchCountSQL(_ query: NormalizedQuery, filter index: Int, cap: Int) -> (String, [SQLiteValue]) {
        QuerySQL<SQLiteDialect>.matchCount(query, filter: index, cap: cap)
    }

    /// A plan that walks one range of a composite index (`CompositeScan`): its keys are in the query's order, so
    /// the statement reads entries in order and stops at the limit; uncovered filters are checked per entry.
    init(_ query: NormalizedQuery, composite scan: CompositeScan, scanCounter: SQLiteScanCounter? = nil) throws {
        parts = QuerySQL(query, composite: scan)
        let from =
            "cidx x CROSS JOIN docs d ON d.cid = x.cid AND d.id = x.id CROSS JOIN collections c ON c.cid = d.cid"
        parts.addDriverRange()
        if let scanCounter { addCountCondition(scanCounter) }
        parts.addFilters()
        let whereClause = " WHERE " + parts.conditions.joined(separator: " AND ")
        let limitClause = query.limit.map { " LIMIT \(parts.param(.int(Int64($0))))" } ?? ""
        let orderClause = " ORDER BY x.key " + (scan.reverse ? "DESC" : "ASC") + limitClause
        sql = "SELECT d.id, d.data, d.ctime, d.utime, d.version, c.path, x.key FROM \(from)\(whereClause)" + orderClause
        countSQL = "SELECT count(*) FROM (SELECT 1 FROM \(from)\(whereClause)\(limitClause))"
        keySQL = "SELECT x.key FROM \(from)\(whereClause)" + orderClause
    }

    /// The term that counts driver rows: right after the driver's own range, so SQLite evaluates it on every row
    /// the driver visits.
    private mutating func addCountCondition(_ counter: SQLiteScanCounter) {
        let handle = parts.param(.int(counter.handle))
        let budget = parts.param(.int(counter.budget))
        parts.conditions.append("kura_scan(\(handle), \(budget), \(parts.row).id)")
    }

    /// What drives the scan, for `explain`.
    var driverDescription: String { parts.driverDescription }

    private func sortExpression(_ position: Int, _ order: Order) -> String {
        switch order.field {
        case .id: parts.usesIndexDriver ? "i0.id" : "d.id"
        case .createTime: "d.ctime"
        case .updateTime: "d.utime"
        case .field(let path):
            position == 0 && parts.driverField == path
                ? "i0.value" : "kura_field(d.data, '\(path.description.replacingOccurrences(of: "'", with: "''"))')"
        }
    }
}

/// SQLite's side of the shared query SQL: `?N` parameters, text names, blob keys, `1`/`0` for true and false.
enum SQLiteDialect: QuerySQLDialect {
    static func placeholder(_ position: Int) -> String { "?\(position)" }
    static func name(_ text: String) -> SQLiteValue { .text(text) }
    static func key(_ bytes: [UInt8]) -> SQLiteValue { .blob(bytes) }
    static func int(_ value: Int64) -> SQLiteValue { .int(value) }
    static var null: SQLiteValue { .null }
    static func indexKey(_ value: JSONValue) -> [UInt8] { IndexKey.encode(value) }
    static var trueLiteral: String { "1" }
    static var falseLiteral: String { "0" }
    static var probeFence: String { "" }
}
