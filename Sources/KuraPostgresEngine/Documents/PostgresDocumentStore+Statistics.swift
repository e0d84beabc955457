import KuraCore
import KuraPostgres

/// Keeps PostgreSQL's planner statistics of the document tables current.
///
/// Query plans (`PostgresQueryPlan`) are shaped so that the join order and the lookups are fixed, but which index
/// drives a walk is still PostgreSQL's choice, made from the tables' statistics. Autovacuum refreshes them only
/// when its next round comes (a minute apart by default) and a threshold of changed rows is passed; right after a
/// bulk load, the tables have none (the planner then estimates one row per condition and may sort a whole index
/// range instead of walking it in order). So a query checks, at most every `statisticsCheckSeconds`, whether
/// `docs`, `idx` or `cidx` changed by more than `staleRows` plus a tenth of their rows since they were last
/// analyzed, and if so runs `VACUUM (ANALYZE)` on them in the background (one node at a time, under an advisory
/// lock; the vacuum sets the visibility map, so index-only scans need not visit the table). A composite index
/// that becomes READY gets its `cidx` entries analyzed the same way.
extension PostgresDocumentStore {
    /// How often a query may check the statistics' age.
    static let statisticsCheckSeconds = 2.0
    /// Changed rows (besides a tenth of the table) after which a table's statistics are refreshed.
    static let staleRows: Int64 = 1000
    /// The tables the planner's choices depend on.
    static let analyzedTables = ["docs", "idx", "cidx"]
    /// The advisory lock held while one node analyzes ("kura.ana").
    static let statisticsLock: Int64 = 0x6B75_7261_2E61_6E61
    /// Runs `ANALYZE`s one at a time, off the query threads (shared by every store of the process).
    static let statisticsJobs = SerialQueue(name: "kura-pg-analyze")

    /// Before planning a query: queues `ANALYZE` of the document tables whose statistics are stale. Costs one
    /// small catalog query every `statisticsCheckSeconds`; errors are ignored (the check is an optimisation).
    func refreshStatisticsIfStale(_ connection: PostgresConnection) {
        let now = MonotonicClock.seconds()
        let due = catalogState.withLock { state -> Bool in
            guard !state.analyzing, now - state.statisticsChecked >= Self.statisticsCheckSeconds else { return false }
            state.statisticsChecked = now
            return true
        }
        guard due else { return }
        let tables = Self.analyzedTables.map { "'\($0)'::regclass" }.joined(separator: ", ")
        guard
            let rows = try? connection.query(
                """
                SELECT relname::text FROM pg_stat_user_tables
                WHERE relid IN (\(tables)) AND n_mod_since_analyze > $1 + n_live_tup / 10
                """, [.int(Self.staleRows)], prepared: true),
            rows.rowCount > 0
        else { return }
        analyze((0..<rows.rowCount).compactMap { rows.string($0, 0) })
    }

    /// Runs `ANALYZE` on `tables` in the background, unless this node or another is already analyzing.
    func analyze(_ tables: [String]) {
        let tables = tables.filter(Self.analyzedTables.contains)
        guard !tables.isEmpty else { return }
        let started = catalogState.withLock { state -> Bool in
            guard !state.analyzing else { return false }
            state.analyzing = true
            return true
        }
        guard started else { return }
        Self.statisticsJobs.async { [self] in
            defer { catalogState.withLock { $0.analyzing = false } }
            let began = MonotonicClock.seconds()
            let done = try? pool.withConnection { connection -> Bool in
                let locked = try connection.query("SELECT pg_try_advisory_lock($1)", [.int(Self.statisticsLock)])
                guard locked.string(0, 0) == "t" else { return false }
                defer { _ = try? connection.query("SELECT pg_advisory_unlock($1)", [.int(Self.statisticsLock)]) }
                // VACUUM as well: it sets the visibility map of pages a bulk load filled, so index-only walks
                // and probes stop visiting the table for every entry (autovacuum would, later).
                for table in tables { try connection.execute("VACUUM (ANALYZE) \(table)") }
                return true
            }
            if done == true {
                let seconds = MonotonicClock.seconds() - began
                configuration.log?(
                    "statistics: vacuumed and analyzed \(tables.joined(separator: ", ")) in \(Int(seconds * 1000)) ms")
            }
        }
    }
}
