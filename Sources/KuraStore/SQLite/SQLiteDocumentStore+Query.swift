import KuraCore
import KuraSQLite

/// What one query cost, for tests and diagnostics.
public struct QueryDiagnostics: Sendable {
    /// SQLite's `EXPLAIN QUERY PLAN` lines.
    public var plan: [String]
    /// Virtual-machine steps the query took (grows with rows examined).
    public var vmSteps: Int
    /// Rows visited by full scans of a table or index (0 when every access is a seek).
    public var fullScanSteps: Int
    /// Documents returned.
    public var documents: Int
}

extension SQLiteDocumentStore {
    public func query(_ query: Query) throws -> QueryResult {
        try run(query).result
    }

    public func count(_ query: Query) throws -> Int64 {
        let normalized = try NormalizedQuery(query)
        return try readers.withSnapshot { connection in
            let plan = try plan(normalized, connection)
            return try connection.rows(plan.countSQL, plan.bindings).first?[0].int ?? 0
        }
    }

    /// Matches below which an `==` filter on another field drives the query instead of the orderBy index. Either
    /// way the work is bounded: at most this many rows sorted, or a walk over a value at least this common.
    static let equalityDriverCap = 4096

    /// The plan for `query`: the orderBy index walk, unless an `==` filter on another field matches fewer than
    /// `equalityDriverCap` documents (counted index-only), in which case those matches are read and sorted.
    func plan(_ query: NormalizedQuery, _ connection: SQLiteConnection) throws -> SQLiteQueryPlan {
        if let candidate = SQLiteQueryPlan.equalityDriverCandidate(query) {
            let (sql, bindings) = SQLiteQueryPlan.matchCountSQL(query, filter: candidate, cap: Self.equalityDriverCap)
            let matches = try connection.rows(sql, bindings).first?[0].int ?? 0
            if matches < Int64(Self.equalityDriverCap) { return try SQLiteQueryPlan(query, equalityDriver: candidate) }
        }
        return try SQLiteQueryPlan(query)
    }

    /// Runs `query` and reports its plan and cost.
    public func diagnose(_ query: Query) throws -> QueryDiagnostics {
        let (result, steps, scans) = try run(query)
        let normalized = try NormalizedQuery(query)
        let lines = try readers.withConnection { connection in
            let plan = try plan(normalized, connection)
            return try connection.rows("EXPLAIN QUERY PLAN " + plan.sql, plan.bindings).map { $0.last?.text ?? "" }
        }
        return QueryDiagnostics(plan: lines, vmSteps: steps, fullScanSteps: scans, documents: result.documents.count)
    }

    private func run(_ query: Query) throws -> (result: QueryResult, vmSteps: Int, fullScans: Int) {
        let normalized = try NormalizedQuery(query)
        return try readers.withSnapshot { connection in
            let plan = try plan(normalized, connection)
            let statement = try connection.statement(plan.sql)
            defer { statement.reset() }
            try statement.bind(plan.bindings)
            var documents: [Document] = []
            while try statement.step() {
                let row = statement.row()
                let id = row[0].text ?? ""
                let path: DocumentPath
                if case .collection(let collection) = normalized.source {
                    path = try collection.document(id)
                } else {
                    path = try DocumentPath((row[5].text ?? "") + "/" + id)
                }
                documents.append(
                    try SQLiteRows.document(path: path, data: row[1], ctime: row[2], utime: row[3], version: row[4]))
            }
            var token: String?
            if let limit = normalized.limit, limit > 0, documents.count == limit, let last = documents.last {
                token = PageToken.encode(last, orders: normalized.orders)
            }
            if let select = normalized.select { documents = documents.map { $0.projected(to: select) } }
            return (QueryResult(documents: documents, nextPageToken: token), statement.vmSteps, statement.fullScanSteps)
        }
    }
}
