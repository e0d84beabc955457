import CSQLite
import Foundation
import KuraCore
import KuraModel
import KuraSQLite
import KuraStore

/// The SQLite engine of `DocumentStore`: one database file in WAL mode, one group-committing writer thread, and
/// pooled read connections that never wait for writes. See `SQLiteSchema` for tables and the index scheme.
///
/// ## Durability
/// `journal_mode=WAL` with `synchronous=FULL`: every commit fsyncs the WAL before `commit` returns, so an
/// acknowledged write survives `kill -9` *and* a power loss or kernel crash. `NORMAL` would survive `kill -9`
/// (the WAL is in the OS page cache) but could lose the last commits on power loss. FULL's extra cost is one
/// fsync per transaction, and group commit shares that fsync among every write queued meanwhile, so throughput
/// under concurrency barely changes.
public final class SQLiteDocumentStore: DocumentStore, CompositeIndexing, Sendable {
    /// How the store is opened.
    public struct Configuration: Sendable {
        /// The database file (created if missing).
        public var path: String
        /// How long change-log entries are kept, in microseconds (default 24 h).
        public var changeRetention: Int64
        /// How often the writer prunes the change log, in microseconds (default 1 min).
        public var pruneInterval: Int64
        /// Composite indexes: when a query that a composite index could serve has none and examines more than
        /// this many rows it does not return, it fails with `FAILED_PRECONDITION` naming the index (`nil`: never).
        public var maxScanRows: Int?
        /// Instead of failing such a query, create the suggested index (built in the background) and answer it
        /// the slow way meanwhile.
        public var autoCreateIndexes: Bool
        /// Where index builds and missing indexes are reported (the server's log).
        public var log: (@Sendable (String) -> Void)?
        /// WAL pages (4 KiB each) written between two checkpoints, which run on a thread of their own
        /// (`SQLiteCheckpointer`).
        public var checkpointPages: Int
        /// The WAL's size bound in bytes: past it the writer waits for a checkpoint before its next transaction,
        /// and the WAL file is truncated to it when it starts over.
        public var maxWALBytes: Int
        /// Bytes of the database file each read connection maps into memory (`PRAGMA mmap_size`): pages are then
        /// read from the OS page cache in place instead of copied by a `pread` per page (0: no mapping).
        public var mmapBytes: Int
        /// How long the work of one composite index build step (one writer transaction) should take: a write
        /// queued behind a step waits about this long, plus the step's commit (default 5 ms).
        public var indexBuildStepSeconds: Double

        /// Creates a configuration.
        public init(
            path: String, changeRetention: Int64 = 86_400_000_000, pruneInterval: Int64 = 60_000_000,
            maxScanRows: Int? = nil, autoCreateIndexes: Bool = false, checkpointPages: Int = 1000,
            maxWALBytes: Int = 64 << 20, mmapBytes: Int = 256 << 20, indexBuildStepSeconds: Double = 0.005,
            log: (@Sendable (String) -> Void)? = nil
        ) {
            self.path = path
            self.indexBuildStepSeconds = indexBuildStepSeconds
            self.mmapBytes = mmapBytes
            self.checkpointPages = checkpointPages
            self.maxWALBytes = maxWALBytes
            self.changeRetention = changeRetention
            self.pruneInterval = pruneInterval
            self.maxScanRows = maxScanRows
            self.autoCreateIndexes = autoCreateIndexes
            self.log = log
        }
    }

    /// The configuration the store was opened with.
    public let configuration: Configuration
    /// Set by `close`: background index jobs stop at their next step.
    let indexBuildsStopped = StopFlag()
    let readers: SQLiteReaderPool
    let writer: SQLiteWriter
    /// Copies the WAL into the database file, off the writer thread.
    let checkpointer: SQLiteCheckpointer
    /// The composite indexes and their states (`SQLiteDocumentStore+CompositeIndexes`).
    let composites = CompositeIndexCatalog()
    /// Runs index builds and drops, one at a time, in the background.
    let indexJobs = SerialQueue(name: "kura-indexer")
    /// Missing-index suggestions already logged (each once).
    let reportedSuggestions = SuggestionLog()
    /// Called between the two passes of every index build (tests).
    let buildScanned = IndexBuildHook()

    /// Opens (creating if needed) the database at `configuration.path`.
    public init(_ configuration: Configuration) throws {
        self.configuration = configuration
        let connection = try SQLiteConnection(path: configuration.path, configure: SQLiteFunctions.register(on:))
        try connection.execute("PRAGMA journal_mode = WAL")
        try connection.execute("PRAGMA synchronous = FULL")
        try SQLiteSchema.create(on: connection)
        let unfinished = try Self.loadCompositeIndexes(connection, into: composites)
        // Checkpoints (copying the WAL into the database file and fsyncing it) run on their own thread, never in
        // the writer's COMMIT, where they held every queued write for seconds during index builds.
        let pageSize = Int(try connection.rows("PRAGMA page_size").first?[0].int ?? 4096)
        let checkpointer = try SQLiteCheckpointer(
            path: configuration.path, checkpointPages: configuration.checkpointPages,
            maxWALPages: configuration.maxWALBytes / pageSize, log: configuration.log)
        try checkpointer.attach(to: connection)
        self.checkpointer = checkpointer
        let mmapBytes = max(0, configuration.mmapBytes)
        readers = SQLiteReaderPool(path: configuration.path) { db in
            try SQLiteFunctions.register(on: db)
            // A query reads its documents at random places in the file; mapped, each page costs no system call.
            sqlite3_exec(db, "PRAGMA mmap_size = \(mmapBytes)", nil, nil, nil)
        }
        let pruning = ChangeLogPruneSchedule(
            retention: configuration.changeRetention, interval: configuration.pruneInterval)
        writer = SQLiteWriter(
            connection: connection, composites: composites,
            beforeTransaction: { checkpointer.beforeTransaction() }, log: configuration.log
        ) { Self.prune($0, when: pruning) }
        for iid in unfinished { startBuild(iid) }
    }

    /// Opens the database file at `path` with default settings.
    public convenience init(path: String) throws {
        try self.init(Configuration(path: path))
    }

    deinit { close() }

    /// Finishes queued writes and stops the writer; later writes fail with 503 `UNAVAILABLE`.
    public func close() {
        indexBuildsStopped.set()
        // Index jobs stop at their next step, which may wait for the writer: before the writer stops.
        indexJobs.stop()
        writer.stop()
        readers.close()
        // Last: the whole WAL into the database file, which then holds every committed write on its own.
        checkpointer.finish()
    }

    public func get(_ path: DocumentPath) throws -> Document? {
        try readers.withConnection { connection in
            let rows = try connection.rows(
                """
                SELECT d.data, d.ctime, d.utime, d.version FROM collections c JOIN docs d ON d.cid = c.cid
                WHERE c.path = ? AND d.id = ?
                """, [.text(path.collection.description), .text(path.id)])
            guard let row = rows.first else { return nil }
            return try SQLiteRows.document(path: path, data: row[0], ctime: row[1], utime: row[2], version: row[3])
        }
    }

    public func commit(_ writes: [Write]) throws -> [WriteResult] {
        let prepared = try PreparedWrite.commit(writes)
        if prepared.isEmpty { return [] }
        return try writer.submit(size: writes.count, selfContained: writes.count == 1) { transaction in
            try CommitApplier.apply(prepared, in: transaction)
        }
    }

    public func commit(
        _ writes: [Write], completion: @escaping @Sendable (Result<[WriteResult], any Error>) -> Void
    ) {
        guard let prepared = PreparedWrite.commit(writes, orAnswer: completion) else { return }
        writer.submit(
            size: writes.count, selfContained: writes.count == 1,
            { transaction in try CommitApplier.apply(prepared, in: transaction) },
            completion: completion)
    }

    public func changes(after sequence: Int64, limit: Int) throws -> [Change] {
        try readers.withConnection { connection in
            try connection.rows(
                """
                SELECT seq, path, kind, version, time, ctime, old_utime, old_version, old_data, new_data
                FROM changes WHERE seq > ? ORDER BY seq LIMIT ?
                """,
                [.int(sequence), .int(Int64(max(0, limit)))]
            ).map(SQLiteRows.change)
        }
    }

    public func oldestRetainedSequence() throws -> Int64 {
        try readers.withSnapshot { connection in
            if let oldest = try connection.rows("SELECT min(seq) FROM changes").first?[0].int { return oldest }
            return try latestSequence(connection) + 1
        }
    }

    public func latestSequence() throws -> Int64 {
        try readers.withConnection { try latestSequence($0) }
    }

    private func latestSequence(_ connection: SQLiteConnection) throws -> Int64 {
        try connection.rows("SELECT seq FROM sqlite_sequence WHERE name = 'changes'").first?[0].int ?? 0
    }

    /// Prunes change-log entries older than the retention now (normally done periodically by the writer).
    public func pruneChangeLog(olderThan cutoff: Int64? = nil) throws {
        let cutoff = cutoff ?? WallClock.nowMicros() - configuration.changeRetention
        try writer.submit(size: 1) { try $0.pruneChanges(olderThan: cutoff) }
    }
}

extension SQLiteDocumentStore {
    /// Prunes the change log in a transaction of its own when `schedule` says it is due; runs on the writer thread.
    fileprivate static func prune(_ transaction: SQLiteWriteTransaction, when schedule: ChangeLogPruneSchedule) {
        guard let cutoff = schedule.dueCutoff() else { return }
        do {
            try transaction.begin()
            try transaction.pruneChanges(olderThan: cutoff)
            try transaction.commit()
        } catch {
            transaction.rollback()
        }
    }
}
