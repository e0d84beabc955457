import KuraCore
import KuraModel
import KuraSQLite
import KuraStore

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
    public func query(_ query: StructuredQuery) throws -> QueryResult {
        try run(query, explain: nil).result
    }

    public func count(_ query: StructuredQuery) throws -> Int64 {
        let normalized = try NormalizedQuery(query)
        let policy = scanPolicy(normalized).budgeted(normalized)
        return try readers.withSnapshot { connection in
            let count: Int64
            do {
                switch try readPlan(normalized, connection, counter: policy.counter) {
                case .statement(let plan): count = try connection.rows(plan.countSQL, plan.bindings).first?[0].int ?? 0
                case .merge(let plan): count = try plan.count(connection)
                }
            } catch  where policy.counter?.exceeded == true {
                throw policy.stoppedWalk(normalized) ?? policy.failure(normalized)
            }
            try policy.settle(normalized, returned: count)
            return count
        }
    }

    /// Matches below which an `==` filter on another field drives the query instead of the orderBy index. Either
    /// way the work is bounded: at most this many rows sorted, or a walk over a value at least this common.
    static let equalityDriverCap = 4096

    /// How a query is read: one statement, or one per range of a composite index, merged.
    typealias ReadPlan = KuraStore.ReadPlan<SQLiteDisjunctionPlan>

    /// The plan for `query`: a composite index split into one range per value of an `in` or
    /// `array-contains-any` filter when that fits best (`CompositePlan`), else `plan(_:_:counter:)`.
    func readPlan(
        _ query: NormalizedQuery, _ connection: SQLiteConnection, counter: SQLiteScanCounter? = nil
    ) throws -> ReadPlan {
        if case .ranges(let split)? = CompositePlan.best(query, in: composites) {
            return .merge(try SQLiteDisjunctionPlan(query, split, scanCounter: counter))
        }
        return .statement(try plan(query, connection, counter: counter))
    }

    /// The one-statement plan for `query`: a READY composite index that fits with one range (the one leaving
    /// fewest filters to check per entry), else the orderBy index walk, unless an `==` filter on another field
    /// matches fewer than `equalityDriverCap` documents (counted index-only), in which case those matches are
    /// read and sorted.
    func plan(
        _ query: NormalizedQuery, _ connection: SQLiteConnection, counter: SQLiteScanCounter? = nil
    ) throws -> SQLiteQueryPlan {
        if case .range(let scan)? = CompositePlan.best(query, in: composites) {
            return try SQLiteQueryPlan(query, composite: scan, scanCounter: counter)
        }
        if let candidate = QueryDriver.equalityCandidate(query) {
            let (sql, bindings) = SQLiteQueryPlan.matchCountSQL(query, filter: candidate, cap: Self.equalityDriverCap)
            let matches = try connection.rows(sql, bindings).first?[0].int ?? 0
            if matches < Int64(Self.equalityDriverCap) {
                return try SQLiteQueryPlan(query, equalityDriver: candidate, scanCounter: counter)
            }
        }
        return try SQLiteQueryPlan(query, scanCounter: counter)
    }

    /// Runs `query` and reports its plan and cost.
    public func diagnose(_ query: StructuredQuery) throws -> QueryDiagnostics {
        let (result, steps, scans) = try run(query, explain: nil)
        let normalized = try NormalizedQuery(query)
        let lines = try readers.withConnection { connection in
            guard let plan = try readPlan(normalized, connection).explained else { return [String]() }
            return try connection.rows("EXPLAIN QUERY PLAN " + plan.sql, plan.bindings).map { $0.last?.text ?? "" }
        }
        return QueryDiagnostics(plan: lines, vmSteps: steps, fullScanSteps: scans, documents: result.documents.count)
    }

    /// Runs `query` and reports which index answered it and how many rows it examined (never refused for
    /// scanning too much: that is what it is for).
    public func explain(_ query: StructuredQuery) throws -> QueryExplanation {
        let normalized = try NormalizedQuery(query)
        let counter = SQLiteScanCounter()
        let (result, _, _) = try run(query, explain: counter)
        return try readers.withConnection { connection in
            let plan = try readPlan(normalized, connection)
            let lines =
                try plan.explained.map { explained in
                    try connection.rows("EXPLAIN QUERY PLAN " + explained.sql, explained.bindings).map {
                        $0.last?.text ?? ""
                    }
                } ?? []
            return QueryExplanation(
                index: plan.driverDescription, compositeIndexID: plan.compositeIndexID, rowsExamined: counter.rows,
                rowsReturned: Int64(result.documents.count), plan: lines,
                suggestedIndex: plan.compositeIndexID == nil ? CompositeIndex.suggested(for: normalized) : nil)
        }
    }

    private func run(
        _ query: StructuredQuery, explain: SQLiteScanCounter?
    ) throws -> (result: QueryResult, vmSteps: Int, fullScans: Int) {
        let normalized = try NormalizedQuery(query)
        let policy = explain.map { ScanPolicy(counter: $0) } ?? scanPolicy(normalized).budgeted(normalized)
        return try readers.withSnapshot { connection in
            var documents: [Document] = []
            func append(_ row: [SQLiteValue]) throws {
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
            var steps = (vmSteps: 0, fullScanSteps: 0)
            do {
                switch try readPlan(normalized, connection, counter: policy.counter) {
                case .statement(let plan):
                    let statement = try connection.statement(plan.sql)
                    defer { statement.reset() }
                    try statement.bind(plan.bindings)
                    while try statement.step() { try append(statement.row()) }
                    steps = (statement.vmSteps, statement.fullScanSteps)
                case .merge(let plan):
                    steps = try plan.forEachRow(connection, append)
                }
            } catch {
                throw policy.stoppedWalk(normalized) ?? error
            }
            try policy.settle(normalized, returned: Int64(documents.count))
            var token: String?
            if let limit = normalized.limit, limit > 0, documents.count == limit, let last = documents.last {
                token = PageToken.encode(last, orders: normalized.orders)
            }
            if let select = normalized.select { documents = documents.map { $0.projected(to: select) } }
            return (QueryResult(documents: documents, nextPageToken: token), steps.vmSteps, steps.fullScanSteps)
        }
    }
}
