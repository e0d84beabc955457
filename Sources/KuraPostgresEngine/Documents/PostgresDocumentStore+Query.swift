import KuraCore
import KuraModel
import KuraPostgres
import KuraStore

/// Queries, counts and `explain`: one statement per query (`PostgresQueryPlan`), on a pooled connection, or one
/// with one branch per range of a composite index, merged (`PostgresDisjunctionPlan`).
///
/// Rows examined are not counted while the walk runs, as SQLite's `kura_scan` does: PostgreSQL has no cheap hook
/// for that. When they matter (a query under the missing-index rule, `explain`), a second, index-only statement
/// counts the driver's rows up to where the walk stopped (`PostgresQueryPlan.examinedSQL`), capped just past the
/// rule's budget. The walk itself stops after that budget (`walkBudget`), so a query that needs an index is
/// refused after reading about `indexes.maxScanRows` rows, as on SQLite, not after reading the whole index.
extension PostgresDocumentStore {
    public func query(_ query: StructuredQuery) throws -> QueryResult {
        try run(query, explaining: false).result
    }

    public func count(_ query: StructuredQuery) throws -> Int64 {
        let normalized = try NormalizedQuery(query)
        return try pool.withConnection { connection in
            try refreshCatalogIfStale(connection)
            refreshStatisticsIfStale(connection)
            let plan: PostgresQueryPlan
            switch try readPlan(normalized, connection) {
            case .statement(let statement): plan = statement
            case .merge(let merge):
                return try merge.count(connection)
            }
            let policy = scanPolicy(normalized)
            // The work budget first: the rows the count would walk are counted index-only, up to what the budget
            // pays for, so that a count past it is refused before it runs.
            let counted = !normalized.filters.isEmpty || normalized.source.isGroup
            if let budget = normalized.budget, counted {
                let perDocument = QueryBudget.perDocument(normalized)
                let allowed = budget.documentsLeft(perDocument: perDocument)
                let walked = try examined(plan, last: nil, cap: allowed == .max ? allowed : allowed + 1, connection)
                if walked > allowed || !budget.charge(walked.multipliedReportingOverflow(by: perDocument).partialValue)
                {
                    throw ScanPolicy.exhausted(budget)
                }
            }
            // Not cut at a budget: a count that reaches its limit is never refused, however far it walked.
            let count = try connection.query(plan.countSQL, plan.bindings, resultFormat: .binary).int(0, 0) ?? 0
            if let budget = normalized.budget, !counted { try Self.charge(budget, returned: Int(count), normalized) }
            if let counter = policy.counter, normalized.limit.map({ count < Int64($0) }) ?? true {
                counter.rows = try examined(plan, last: nil, cap: policy.maxWasted + count + 1, connection)
                try policy.check(normalized, returned: count)
            }
            return count
        }
    }

    /// Matches below which an `==` filter on another field drives the query instead of the orderBy index.
    static let equalityDriverCap = 4096

    /// The plan for `query`: a composite index split into one range per value of an `in` or
    /// `array-contains-any` filter when that fits best (`CompositePlan`), else `plan(_:_:)`.
    func readPlan(_ query: NormalizedQuery, _ connection: PostgresConnection) throws -> PostgresReadPlan {
        if case .ranges(let split)? = CompositePlan.best(query, in: composites) {
            return .merge(try PostgresDisjunctionPlan(query, split))
        }
        return .statement(try plan(query, connection))
    }

    /// The one-statement plan for `query`: a READY composite index that fits with one range (the one leaving
    /// fewest filters to check per entry), else the orderBy index walk, unless an `==` filter on another field
    /// matches fewer than `equalityDriverCap` documents (counted index-only), in which case those matches are
    /// read and sorted.
    func plan(_ query: NormalizedQuery, _ connection: PostgresConnection) throws -> PostgresQueryPlan {
        if case .range(let scan)? = CompositePlan.best(query, in: composites) {
            return try PostgresQueryPlan(query, composite: scan)
        }
        if let candidate = QueryDriver.equalityCandidate(query) {
            let (sql, bindings) = PostgresQueryPlan.matchCountSQL(
                query, filter: candidate, cap: Self.equalityDriverCap)
            let matches = try connection.query(sql, bindings, resultFormat: .binary).int(0, 0) ?? 0
            if matches < Int64(Self.equalityDriverCap) {
                return try PostgresQueryPlan(query, equalityDriver: candidate)
            }
        }
        return try PostgresQueryPlan(query)
    }

    /// Runs `query` and reports which index answered it and how many rows it examined (never refused for
    /// scanning too much: that is what it is for).
    public func explain(_ query: StructuredQuery) throws -> QueryExplanation {
        let run = try run(query, explaining: true)
        let normalized = try NormalizedQuery(query)
        let lines = try pool.withConnection { connection -> [String] in
            guard let explained = run.plan.explained else { return [] }
            let rows = try connection.query("EXPLAIN (ANALYZE, BUFFERS) " + explained.sql, explained.bindings)
            return run.notes + (0..<rows.rowCount).map { rows.string($0, 0) ?? "" }
        }
        return QueryExplanation(
            index: run.plan.driverDescription, compositeIndexID: run.plan.compositeIndexID,
            rowsExamined: run.examined ?? 0, rowsReturned: Int64(run.result.documents.count), plan: lines,
            suggestedIndex: run.plan.compositeIndexID == nil ? CompositeIndex.suggested(for: normalized) : nil)
    }

    /// The driver rows a query under the missing-index rule may walk: past `maxWasted` rows beyond the `limit`
    /// it returns at most, the rule refuses it anyway, so the statement stops there (`PostgresQueryPlan.select`)
    /// rather than reading the rest of the index. `nil` (no bound) for queries the rule never refuses.
    static func walkBudget(_ policy: ScanPolicy, _ query: NormalizedQuery) -> Int64? {
        var budget = policy.budget != nil && policy.budgetRows < .max ? policy.budgetRows + 1 : Int64.max
        if policy.counter != nil, policy.suggestion != nil, policy.maxWasted < .max, let limit = query.limit {
            budget = min(budget, policy.maxWasted + Int64(limit) + 1)
        }
        return budget < .max ? budget : nil
    }

    /// Charges the documents a walk that was not counted returned (a composite range, or no filter to skip rows):
    /// what it examined, or about.
    private static func charge(_ budget: QueryBudget, returned: Int, _ query: NormalizedQuery) throws {
        let (units, overflow) = Int64(returned).multipliedReportingOverflow(by: QueryBudget.perDocument(query))
        if !budget.charge(overflow ? .max : units) { throw ScanPolicy.exhausted(budget) }
    }

    /// Driver rows the walk of `plan` visited, up to `last` (the walk key of the last result when the query
    /// stopped at its limit), at most `cap`.
    private func examined(
        _ plan: PostgresQueryPlan, last: PostgresValue?, cap: Int64, _ connection: PostgresConnection
    ) throws -> Int64 {
        let (sql, bindings) = plan.examinedSQL(last: last, cap: max(1, cap))
        return try connection.query(sql, bindings, resultFormat: .binary).int(0, 0) ?? 0
    }

    /// A query's result, the plan that produced it, the rows it examined (when counted) and, for a merge, one
    /// line per range for `explain`.
    private struct Run {
        var result: QueryResult
        var plan: PostgresReadPlan
        var examined: Int64?
        var notes: [String] = []
    }

    private func run(_ query: StructuredQuery, explaining: Bool) throws -> Run {
        let normalized = try NormalizedQuery(query)
        return try pool.withConnection { connection in
            try refreshCatalogIfStale(connection)
            refreshStatisticsIfStale(connection)
            let readPlan = try readPlan(normalized, connection)
            var documents: [Document] = []
            func append(_ rows: PostgresResult, _ row: Int) throws {
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
            var notes: [String] = []
            switch readPlan {
            case .merge(let merge):
                // A composite index serves the query, so the missing-index rule has nothing to count. One
                // statement reads every range; explain's counts run after it, on the same snapshot.
                func read(_ connection: PostgresConnection) throws {
                    let merged = try merge.read(connection)
                    documents.reserveCapacity(merged.rows.count)
                    for (_, row) in merged.rows { try append(merged.result, row) }
                    if explaining {
                        examinedRows = try merge.examined(merged, connection)
                        notes = merge.rangeLines(merged)
                    }
                }
                if explaining {
                    try PostgresDisjunctionPlan.onOneSnapshot(connection, read)
                } else {
                    try read(connection)
                    if let budget = normalized.budget { try Self.charge(budget, returned: documents.count, normalized) }
                }
            case .statement(let plan):
                // Counting the walk costs a second statement: only worth it when filters may skip rows.
                let counted = !normalized.filters.isEmpty || normalized.source.isGroup
                let policy =
                    explaining
                    ? ScanPolicy(counter: ScanCounter())
                    : counted ? scanPolicy(normalized).budgeted(normalized) : scanPolicy(normalized)
                let (sql, bindings) = plan.select(budget: explaining ? nil : Self.walkBudget(policy, normalized))
                let rows = try connection.query(sql, bindings, resultFormat: .binary, prepared: plan.prefersPrepared)
                documents.reserveCapacity(rows.rowCount)
                for row in 0..<rows.rowCount { try append(rows, row) }
                if let counter = policy.counter {
                    let stoppedAtLimit = normalized.limit.map { $0 > 0 && documents.count == $0 } ?? false
                    let last = stoppedAtLimit ? rows.bytes(rows.rowCount - 1, 6).map(PostgresValue.bytes) : nil
                    let cap = explaining ? Int64.max : policy.examinedCap(returned: Int64(documents.count))
                    counter.rows = try examined(plan, last: last, cap: cap, connection)
                    examinedRows = counter.rows
                    if let stopped = policy.stoppedWalk(normalized) { throw stopped }
                    try policy.settle(normalized, returned: Int64(documents.count))
                } else if let budget = normalized.budget, !explaining {
                    try Self.charge(budget, returned: documents.count, normalized)
                }
            }
            var token: String?
            if let limit = normalized.limit, limit > 0, documents.count == limit, let last = documents.last {
                token = PageToken.encode(last, orders: normalized.orders)
            }
            if let select = normalized.select { documents = documents.map { $0.projected(to: select) } }
            return Run(
                result: QueryResult(documents: documents, nextPageToken: token), plan: readPlan,
                examined: examinedRows, notes: notes)
        }
    }
}

/// How a query is read: one statement, or one per range of a composite index, merged.
typealias PostgresReadPlan = ReadPlan<PostgresDisjunctionPlan>
