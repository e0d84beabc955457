import Foundation
import KuraCore
import KuraModel
import KuraPostgres
import KuraStore
import Synchronization

/// The PostgreSQL engine of `DocumentStore`: every node opens one on the shared database. Reads go through this
/// node's connection pool; writes go through one writer thread per node that commits them in batches
/// (`PostgresWriter`). Tables and index scheme: `PostgresDocumentSchema` (the SQLite engine's, in PostgreSQL
/// types); the change log's order across nodes: `ChangeSequence`.
public final class PostgresDocumentStore: EngineDocumentStore, @unchecked Sendable {
    // `@unchecked`: `writer` is set once in `init`, before the store is shared, and only read after.
    /// How the store is opened.
    public struct Configuration: Sendable {
        /// How long change-log entries are kept, in microseconds (default 24 h).
        public var changeRetention: Int64
        /// How often the writer prunes the change log, in microseconds (default 1 min).
        public var pruneInterval: Int64
        /// Composite indexes: a query that a composite index could serve, with none READY, that examines more
        /// than this many rows it does not return fails with `FAILED_PRECONDITION` naming the index (`nil`: never).
        public var maxScanRows: Int?
        /// Instead of failing such a query, create the suggested index (built in the background).
        public var autoCreateIndexes: Bool
        /// Where index builds and missing indexes are reported (the server's log).
        public var log: (@Sendable (String) -> Void)?
        /// How long, in microseconds, other nodes leave an index build to the node that ran its last step (or
        /// declared it) before one of them takes it over (default 30 s); they check every half of it.
        public var indexBuildLease: Int64

        /// Creates a configuration.
        public init(
            changeRetention: Int64 = 86_400_000_000, pruneInterval: Int64 = 60_000_000, maxScanRows: Int? = nil,
            autoCreateIndexes: Bool = false, log: (@Sendable (String) -> Void)? = nil,
            indexBuildLease: Int64 = 30_000_000
        ) {
            self.changeRetention = changeRetention
            self.pruneInterval = pruneInterval
            self.maxScanRows = maxScanRows
            self.autoCreateIndexes = autoCreateIndexes
            self.log = log
            self.indexBuildLease = indexBuildLease
        }
    }

    /// The configuration the store was opened with.
    public let configuration: Configuration
    /// The node's connections (shared with the engine's other stores).
    let pool: PostgresConnectionPool
    var writer: PostgresWriter!
    /// The composite indexes and their states (`PostgresDocumentStore+CompositeIndexes`).
    let composites = CompositeIndexCatalog()
    /// The `composite_catalog` version `composites` was loaded at, and when it was last checked.
    let catalogState = Mutex(CatalogState())
    /// Runs index builds and drops, one at a time, in the background.
    let indexJobs = SerialQueue(name: "kura-pg-indexer")
    /// Set by `close`: background index jobs stop at their next step.
    let indexBuildsStopped = Atomic<Bool>(false)
    /// Missing-index suggestions already logged (each once).
    let reportedSuggestions = SuggestionLog()
    private let closed = Atomic<Bool>(false)

    /// Opens the document store on `database` (migrating its schema first if needed).
    public init(database: PostgresDatabase, configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        pool = try database.prepared(log: configuration.log)
        let unfinished = try pool.withConnection { try reloadCatalog($0) }
        let pruning = ChangeLogPruneSchedule(
            retention: configuration.changeRetention, interval: configuration.pruneInterval)
        writer = PostgresWriter(
            pool: pool, composites: composites, log: configuration.log,
            afterBegin: { [unowned self] connection, version in
                try refreshCatalogInTransaction(connection, version: version)
            },
            maintenance: { connection in
                if let cutoff = pruning.dueCutoff() { try? ChangeLogPruner.prune(connection, olderThan: cutoff) }
            },
            catalogVersion: { [unowned self] in catalogState.withLock { $0.version } })
        for iid in unfinished { startBuild(iid) }
    }

    deinit { close() }

    public func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        indexBuildsStopped.store(true, ordering: .releasing)
        indexJobs.stop()
        writer.stop()
    }

    public func get(_ path: DocumentPath) throws -> Document? {
        try pool.withConnection { connection in
            let rows = try connection.query(
                """
                SELECT d.data, d.ctime, d.utime, d.version FROM collections c JOIN docs d ON d.cid = c.cid
                WHERE c.path = $1 AND d.id = $2
                """, [PostgresRows.name(path.collection.description), PostgresRows.name(path.id)],
                resultFormat: .binary, prepared: true)
            guard rows.rowCount == 1 else { return nil }
            return try PostgresRows.document(path: path, rows, 0, data: 0, ctime: 1, utime: 2, version: 3)
        }
    }

    public func commit(_ writes: [Write]) throws -> [WriteResult] {
        let prepared = try PreparedWrite.commit(writes)
        if prepared.isEmpty { return [] }
        return try writer.submit(
            size: writes.count, selfContained: writes.count == 1, paths: writes.map(\.path), bulk: Self.bulk(prepared)
        ) { transaction in
            try CommitApplier.apply(prepared, in: transaction)
        }
    }

    public func commit(
        _ writes: [Write], completion: @escaping @Sendable (Result<[WriteResult], any Error>) -> Void
    ) {
        guard let prepared = PreparedWrite.commit(writes, orAnswer: completion) else { return }
        writer.submit(
            size: writes.count, selfContained: writes.count == 1, paths: writes.map(\.path), bulk: Self.bulk(prepared),
            { transaction in try CommitApplier.apply(prepared, in: transaction) }, completion: completion)
    }

    /// A commit of one blind create may run in bulk with the writer's other such commits (`createAll`).
    private static func bulk(_ prepared: [PreparedWrite]) -> (
        create: PreparedWrite, result: (WriteResult) -> [WriteResult]
    )? {
        guard prepared.count == 1, prepared[0].isBlindCreate, prepared[0].outcome != nil else { return nil }
        return (prepared[0], { [$0] })
    }

    public func changes(after sequence: Int64, limit: Int) throws -> [Change] {
        try pool.withConnection { connection in
            let rows = try connection.query(
                "SELECT \(PostgresRows.changeColumns) FROM changes WHERE seq > $1 ORDER BY seq LIMIT $2",
                [.int(sequence), .int(Int64(max(0, limit)))], resultFormat: .binary, prepared: true)
            return try (0..<rows.rowCount).map { try PostgresRows.change(rows, $0) }
        }
    }

    public func changedPaths(after sequence: Int64, limit: Int) throws -> [ChangedPath] {
        try pool.withConnection { connection in
            let rows = try connection.query(
                "SELECT seq, path FROM changes WHERE seq > $1 ORDER BY seq LIMIT $2",
                [.int(sequence), .int(Int64(max(0, limit)))], resultFormat: .binary, prepared: true)
            return try (0..<rows.rowCount).map { row in
                ChangedPath(
                    sequence: try rows.int(row, 0) ?? 0, path: try DocumentPath(PostgresRows.text(rows, row, 1)))
            }
        }
    }

    public func oldestRetainedSequence() throws -> Int64 {
        try pool.withConnection { connection in
            // One statement, one snapshot: the oldest entry, or the next number when the log is empty.
            let rows = try connection.query(
                """
                SELECT coalesce((SELECT min(seq) FROM changes),
                    (SELECT last_value + 1 FROM \(ChangeSequence.table) WHERE name = $1))
                """, [.text(PostgresDocumentSchema.changeSequence.name)], resultFormat: .binary, prepared: true)
            return try rows.int(0, 0) ?? 1
        }
    }

    public func latestSequence() throws -> Int64 {
        try pool.withConnection { try PostgresDocumentSchema.changeSequence.lastCommitted($0) }
    }

    /// Prunes change-log entries older than the retention now (normally done periodically by the writer).
    public func pruneChangeLog(olderThan cutoff: Int64? = nil) throws {
        let cutoff = cutoff ?? WallClock.nowMicros() - configuration.changeRetention
        try pool.withConnection { try ChangeLogPruner.prune($0, olderThan: cutoff) }
    }
}

/// Prunes the change log (when `ChangeLogPruneSchedule` says so, on the writer thread, or on request).
private enum ChangeLogPruner {
    /// Deletes the leading run of entries older than `cutoff` (every node prunes; concurrent deletes are harmless).
    static func prune(_ connection: PostgresConnection, olderThan cutoff: Int64) throws {
        // One statement, so an entry another node commits meanwhile is outside its snapshot and stays. The walk
        // from the oldest entry to the first one to keep costs what it prunes.
        try connection.query(
            """
            DELETE FROM changes WHERE seq < coalesce(
                (SELECT seq FROM changes WHERE time >= $1 ORDER BY seq LIMIT 1), (SELECT max(seq) + 1 FROM changes), 0)
            """, [.int(cutoff)])
    }
}
