import Foundation
import KuraCore
import KuraModel
import KuraSQLite
import KuraStore

/// The single writer: one thread, one connection, group commit.
///
/// The queue, the writer thread, submitting (blocking or with a completion) and the acknowledgements are the
/// engines' shared core, `WriterQueue` (KuraStore); this type is what only SQLite adds. The writer thread takes
/// everything queued (up to `maxBatchWrites` writes), runs it in one `BEGIN IMMEDIATE … COMMIT`, and wakes all
/// callers after the single fsync of that transaction. While one batch is being committed the next one queues
/// up, so durability costs one fsync per batch, not per write.
///
/// The writer thread is the one serial stage of every write, so it does nothing after COMMIT: calling the
/// completions (which invalidate caches and wake event loops) and freeing the batch (the writes' fields and index
/// entries, allocated on other threads) happen on a serial queue of their own, in commit order. That took a
/// sixth off each cycle of the writer (bench/docs.sh creates: ~250 µs of a 1.6 ms cycle for ~30 writes).
///
/// One failing commit must not take its batch with it. A commit of several writes runs inside its own SAVEPOINT
/// and rolls back alone. A SAVEPOINT is not free, though: SQLite copies every page a savepoint touches to its
/// journal first, which was the writer's largest cost for single-document writes (bench/docs.sh, creates). So a
/// job that declares itself *self-contained* runs without one: such a job fails, if at all, before it changes a
/// row or in a single statement that SQLite undoes itself. Should it fail after changing rows after all (an I/O
/// error, say), the whole transaction is rolled back and the rest of the batch runs again in a new one.
final class SQLiteWriter: Sendable {
    /// What SQLite keeps per job.
    struct JobAttributes {
        /// A background job (an index build window): committed alone, and only after the writes queued before
        /// it (see `SQLiteWriterQueue`).
        let background: Bool
    }

    fileprivate typealias Job = WriterJob<SQLiteWriteTransaction, JobAttributes>

    static let maxBatchWrites = 2000

    private let core = WriterQueue<SQLiteWriteTransaction, JobAttributes>(
        threadName: "kura-writer", acknowledgementsName: "kura-write-acks")

    /// Starts the writer thread on `connection`, which it owns from now on. `maintenance` runs between batches
    /// (change-log pruning); `beforeTransaction` before each batch's BEGIN (waiting for the checkpointer when the
    /// WAL is too large).
    init(
        connection: sending SQLiteConnection, composites: CompositeIndexCatalog = CompositeIndexCatalog(),
        beforeTransaction: sending @escaping () -> Void = {}, log: (@Sendable (String) -> Void)? = nil,
        maintenance: sending @escaping (SQLiteWriteTransaction) -> Void
    ) {
        let loop = SQLiteWriterLoop(
            core: core, connection: connection, composites: composites, beforeTransaction: beforeTransaction,
            log: log, maintenance: maintenance)
        core.start { loop.run() }
    }

    /// Runs `work` inside the next group-committed transaction and returns its result once that transaction is
    /// durable. If `work` throws, only its own changes are rolled back and the error is rethrown here.
    func submit<T: Sendable>(
        size: Int, selfContained: Bool = false, background: Bool = false,
        _ work: @escaping (SQLiteWriteTransaction) throws -> T
    ) throws -> T {
        try core.submit(
            size: size, selfContained: selfContained, attributes: JobAttributes(background: background), work)
    }

    /// Queues `work` for the next group-committed transaction; `completion` runs once that transaction is durable
    /// (or failed), on a serial queue that calls the completions in commit order. `selfContained`: see the type's
    /// documentation. `background`: a long job (an index build window) that runs in a transaction of its own
    /// and lets the writes queued before it go first.
    func submit<T: Sendable>(
        size: Int, selfContained: Bool = false, background: Bool = false,
        _ work: @escaping (SQLiteWriteTransaction) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        core.submit(
            size: size, selfContained: selfContained, attributes: JobAttributes(background: background), work,
            completion: completion)
    }

    /// Whether a write (a job that is not a background job) is queued: a background job running on the writer
    /// thread may end early to let it go next.
    var writesWaiting: Bool {
        core.withJobs { jobs in jobs.contains { !$0.attributes.background } }
    }

    /// Finishes queued work and stops the thread; later submits fail with 503.
    func stop() { core.stop() }
}

/// What the writer thread alone touches: the connection, the transaction it makes on it, and the batch loop.
private final class SQLiteWriterLoop {
    private let core: WriterQueue<SQLiteWriteTransaction, SQLiteWriter.JobAttributes>
    private let connection: SQLiteConnection
    private let composites: CompositeIndexCatalog
    private let maintenance: (SQLiteWriteTransaction) -> Void
    private let beforeTransaction: () -> Void
    /// Where slow cycles are reported (`SQLiteWriterCycle`).
    private let log: (@Sendable (String) -> Void)?
    private var cycle = SQLiteWriterCycle()
    /// Whether the last batch was a background job (so the writes queued behind it go next).
    private var lastBatchWasBackground = false

    init(
        core: WriterQueue<SQLiteWriteTransaction, SQLiteWriter.JobAttributes>, connection: SQLiteConnection,
        composites: CompositeIndexCatalog, beforeTransaction: @escaping () -> Void,
        log: (@Sendable (String) -> Void)?, maintenance: @escaping (SQLiteWriteTransaction) -> Void
    ) {
        self.core = core
        self.connection = connection
        self.composites = composites
        self.beforeTransaction = beforeTransaction
        self.log = log
        self.maintenance = maintenance
    }

    func run() {
        // Made here, on the writer thread, which it then checks on every use of its connection.
        let transaction = SQLiteWriteTransaction(
            connection: connection, composites: composites, writerThread: core.writerThread)
        while let batch = nextBatch() {
            cycle = SQLiteWriterCycle(
                jobs: batch.count, backgroundJobs: batch.count { $0.attributes.background },
                oldestQueued: batch.map(\.queued).min() ?? 0)
            beforeTransaction()
            cycle.checkpointWaitDone()
            commit(batch, in: transaction)
            cycle.finish()
            if let log, cycle.longestWait >= SQLiteWriterCycle.slowSeconds { log(cycle.description) }
            maintenance(transaction)
        }
    }

    private func nextBatch() -> [SQLiteWriter.Job]? {
        let batch = core.nextBatch { [lastBatchWasBackground] queue in
            SQLiteWriterQueue.nextBatch(
                queue.map { ($0.size, $0.attributes.background) }, maxWrites: SQLiteWriter.maxBatchWrites,
                afterBackground: lastBatchWasBackground)
        }
        if let batch { lastBatchWasBackground = batch.first?.attributes.background ?? false }
        return batch
    }

    private func commit(_ batch: [SQLiteWriter.Job], in transaction: SQLiteWriteTransaction) {
        do {
            try transaction.begin()
        } catch {
            for job in batch { job.fail(error) }
            return core.acknowledge(batch)
        }
        for (index, job) in batch.enumerated() {
            if job.selfContained {
                let changesBefore = transaction.connection.totalChanges
                do {
                    try job.run(transaction)
                } catch {
                    job.fail(error)
                    if transaction.connection.totalChanges != changesBefore {
                        // It changed rows before failing: only a rollback of everything undoes them.
                        transaction.rollback()
                        core.acknowledge([job])
                        var rest = batch
                        rest.remove(at: index)
                        return commit(rest, in: transaction)
                    }
                }
                transaction.keepJobState()
                continue
            }
            do {
                try transaction.inSavepoint { try job.run(transaction) }
            } catch {
                job.fail(error)
            }
        }
        cycle.workDone()
        do {
            try transaction.commit()
        } catch {
            transaction.rollback()
            for job in batch where job.succeeded { job.fail(error) }
        }
        core.acknowledge(batch)
    }
}
