import KuraCore
import KuraModel
import KuraPostgres
import KuraStore

/// Queries, counts and `explain`: one statement per query (`PostgresQueryPlan`), on a pooled connection.
///
/// Rows examined are not counted while the walk runs, as SQLite's `kura_scan` does: PostgreSQL has no cheap hook
/// for that. When they matter (a query under the missing-index rule, `explain`), a second, index-only statement
/// counts the driver's rows up to where the walk stopped (`PostgresQueryPlan.examinedSQL`), capped just past the
/// rule's budget. So a query that needs an index is still refused, but only after it ran once to the end.
extension PostgresDocumentStore {
    public func query(_ query: StructuredQuery) throws -> QueryResult {
        try run(query, explaining: false).result
    }

    public func count(_ query: StructuredQuery) throws -> Int64 {
        let normalized = try NormalizedQuery(query)
        return try pool.withConnection { connection in
            try refreshCatalogIfStale(connection)
            let plan = try plan(normalized, connection)
            let policy = scanPolicy(normalized)
            let count = try connection.query(plan.countSQL, plan.bindings, resultFormat: .binary).int(0, 0) ?? 0
            if let counter = policy.counter, normalized.limit.map({ count < Int64($0) }) ?? true {
                counter.rows = try examined(plan, last: nil, cap: policy.maxWasted + count + 1, connection)
                try policy.check(normalized, returned: count)
            }
            return count
        }
    }

    /// Matches below which an `==` filter on another field drives the query instead of the orderBy index.
    static let equalityDriverCap = 4096

    /// The plan for `query`: a READY composite index that fits (the one leaving fewest filters to check per
    /// entry), else the orderBy index walk, unless an `==` filter on another field matches fewer than
    /// `equalityDriverCap` documents (counted index-only), in which case those matches are read and sorted.
    func plan(_ query: NormalizedQuery, _ connection: PostgresConnection) throws -> PostgresQueryPlan {
        if let scan = compositeScan(query) { return try PostgresQueryPlan(query, composite: scan) }
        if let candidate = PostgresQueryPlan.equalityDriverCandidate(query) {
            let (sql, bindings) = PostgresQueryPlan.matchCountSQL(
                query, filter: candidate, cap: Self.equalityDriverCap)
            let matches = try connection.query(sql, bindings, resultFormat: .binary).int(0, 0) ?? 0
            if matches < Int64(Self.equalityDriverCap) {
                return try PostgresQueryPlan(query, equalityDriver: candidate)
            }
        }
        return try PostgresQueryPlan(query)
    }

    /// The best READY composite index for `query`, if one fits.
    func compositeScan(_ query: NormalizedQuery) -> CompositeScan? {
        let collectionID =
            switch query.source {
            case .collection(let path): path.collectionID
            case .collectionGroup(let id): id
            }
        var best: CompositeScan?
        for (id, index) in composites.ready(for: collectionID) {
            guard let scan = CompositeScan(query, index: index, id: id) else { continue }
            if best == nil || scan.residual.count < best!.residual.count { best = scan }
        }
        return best
    }

    /// Runs `query` and reports which index answered it and how many rows it examined (never refused for
    /// scanning too much: that is what it is for).
    public func explain(_ query: StructuredQuery) throws -> QueryExplanation {
        let (result, plan, examined) = try run(query, explaining: true)
        let normalized = try NormalizedQuery(query)
        let lines = try pool.withConnection { connection -> [String] in
            let rows = try connection.query("EXPLAIN " + plan.sql, plan.bindings)
            return (0..<rows.rowCount).map { rows.string($0, 0) ?? "" }
        }
        return QueryExplanation(
            index: plan.driverDescription, compositeIndexID: plan.composite?.indexID, rowsExamined: examined ?? 0,
            rowsReturned: Int64(result.documents.count), plan: lines,
            suggestedIndex: plan.composite == nil ? CompositeIndex.suggested(for: normalized) : nil)
    }

    /// Driver rows the walk of `plan` visited, up to `last` (the walk key of the last result when the query
    /// stopped at its limit), at most `cap`.
    private func examined(
        _ plan: PostgresQueryPlan, last: PostgresValue?, cap: Int64, _ connection: PostgresConnection
    ) throws -> Int64 {
        let (sql, bindings) = plan.examinedSQL(last: last, cap: max(1, cap))
        return try connection.query(sql, bindings, resultFormat: .binary).int(0, 0) ?? 0
    }

    private func run(_ query: StructuredQuery, explaining: Bool) throws -> (
        result: QueryResult, plan: PostgresQueryPlan, examined: Int64?
    ) {
        let normalized = try NormalizedQuery(query)
        return try pool.withConnection { connection in
            try refreshCatalogIfStale(connection)
            let plan = try plan(normalized, connection)
            let policy = explaining ? ScanPolicy(counter: ScanCounter()) : scanPolicy(normalized)
            let rows = try connection.query(plan.sql, plan.bindings, resultFormat: .binary)
            var documents: [Document] = []
            documents.reserveCapacity(rows.rowCount)
            for row in 0..<rows.rowCount {
                let id = PostgresRows.text(rows, row, 0)
                let path: DocumentPath
                if case .collection(let collection) = normalized.source {
                    path = try collection.document(id)
                } else {
                    path = try DocumentPath(PostgresRows.text(rows, row, 5) + "/" + id)
                }
                documents.append(
                    try PostgresRows.document(path: path, rows, row, data: 1, ctime: 2, utime: 3, version: 4))
            }
            var examinedRows: Int64?
            if let counter = policy.counter {
                let stoppedAtLimit = normalized.limit.map { $0 > 0 && documents.count == $0 } ?? false
                let last = stoppedAtLimit ? rows.bytes(rows.rowCount - 1, 6).map(PostgresValue.bytes) : nil
                let cap = explaining ? Int64.max : policy.maxWasted + Int64(documents.count) + 1
                counter.rows = try examined(plan, last: last, cap: cap, connection)
                examinedRows = counter.rows
                try policy.check(normalized, returned: Int64(documents.count))
            }
            var token: String?
            if let limit = normalized.limit, limit > 0, documents.count == limit, let last = documents.last {
                token = PageToken.encode(last, orders: normalized.orders)
            }
            if let select = normalized.select { documents = documents.map { $0.projected(to: select) } }
            return (QueryResult(documents: documents, nextPageToken: token), plan, examinedRows)
        }
    }
}
