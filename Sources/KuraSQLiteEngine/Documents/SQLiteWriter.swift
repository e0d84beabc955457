import Foundation
import KuraCore
import KuraModel
import KuraSQLite
import KuraStore

/// The single writer: one thread, one connection, group commit.
///
/// Callers `submit` a commit and either block or get a completion callback (so a server thread is not held while
/// the commit waits for its fsync: that is what lets many concurrent writes share one). The writer thread takes everything queued (up to `maxBatchWrites`
/// writes), runs it in one `BEGIN IMMEDIATE … COMMIT`, and wakes all callers after the single fsync of that
/// transaction. While one batch is being committed the next one queues up, so durability costs one fsync per
/// batch, not per write.
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
final class SQLiteWriter: @unchecked Sendable {
    /// A queued unit of work and its outcome, whatever the type of its result (`TypedJob`); the batch loop sees
    /// only this. `@unchecked`: the outcome is written by the writer thread only, and handed to the completion once
    /// the batch is durable (or failed).
    private class Job: @unchecked Sendable {
        let size: Int
        let selfContained: Bool
        /// A background job (an index build window): committed alone, and only after the writes queued before
        /// it (see `SQLiteWriterQueue`).
        let background: Bool
        /// When it was submitted (monotonic nanoseconds), for the slow-write log.
        let queued = MonotonicClock.nanoseconds()
        init(size: Int, selfContained: Bool, background: Bool) {
            self.size = size
            self.selfContained = selfContained
            self.background = background
        }
        /// Runs the work in `transaction` and keeps its value as the outcome; throws what the work throws.
        func run(_ transaction: SQLiteWriteTransaction) throws { fatalError("abstract") }
        /// Makes `error` the outcome.
        func fail(_ error: any Error) { fatalError("abstract") }
        /// Whether the outcome is a value.
        var succeeded: Bool { fatalError("abstract") }
        /// Hands the outcome to the submitter.
        func finish() { fatalError("abstract") }
    }

    private final class TypedJob<T>: Job, @unchecked Sendable {
        let work: (SQLiteWriteTransaction) throws -> T
        var result: Result<T, any Error> = .failure(APIError.unavailable("the store is closed"))
        let completion: @Sendable (Result<T, any Error>) -> Void
        init(
            size: Int, selfContained: Bool, background: Bool, work: @escaping (SQLiteWriteTransaction) throws -> T,
            completion: @escaping @Sendable (Result<T, any Error>) -> Void
        ) {
            self.work = work
            self.completion = completion
            super.init(size: size, selfContained: selfContained, background: background)
        }
        override func run(_ transaction: SQLiteWriteTransaction) throws { result = .success(try work(transaction)) }
        override func fail(_ error: any Error) { result = .failure(error) }
        override var succeeded: Bool {
            if case .success = result { return true }
            return false
        }
        override func finish() { completion(result) }
    }

    static let maxBatchWrites = 2000

    private let condition = NSCondition()
    /// Runs the completions of committed batches, in commit order (see the type's documentation).
    private let acknowledgements = SerialQueue(name: "kura-write-acks")
    private var queue: [Job] = []
    private var stopped = false
    /// Whether the last batch was a background job (so the writes queued behind it go next).
    private var lastBatchWasBackground = false
    private let thread = ServiceThread(name: "kura-writer")
    private let transaction: SQLiteWriteTransaction
    private let maintenance: (SQLiteWriteTransaction) -> Void
    private let beforeTransaction: () -> Void
    /// Where slow cycles are reported (`SQLiteWriterCycle`).
    private let log: (@Sendable (String) -> Void)?
    private var cycle = SQLiteWriterCycle()

    /// Starts the writer thread on `connection`. `maintenance` runs between batches (change-log pruning);
    /// `beforeTransaction` before each batch's BEGIN (waiting for the checkpointer when the WAL is too large).
    init(
        connection: SQLiteConnection, composites: CompositeIndexCatalog = CompositeIndexCatalog(),
        beforeTransaction: @escaping () -> Void = {}, log: (@Sendable (String) -> Void)? = nil,
        maintenance: @escaping (SQLiteWriteTransaction) -> Void
    ) {
        self.log = log
        self.transaction = SQLiteWriteTransaction(connection: connection, composites: composites)
        self.maintenance = maintenance
        self.beforeTransaction = beforeTransaction
        thread.start { [unowned self] in self.run() }
    }

    /// Runs `work` inside the next group-committed transaction and returns its result once that transaction is
    /// durable. If `work` throws, only its own changes are rolled back and the error is rethrown here.
    func submit<T>(
        size: Int, selfContained: Bool = false, background: Bool = false,
        _ work: @escaping (SQLiteWriteTransaction) throws -> T
    ) throws -> T {
        let outcome = Outcome<T>()
        submit(size: size, selfContained: selfContained, background: background, work) { result in
            outcome.result = result
            outcome.done.raise()
        }
        outcome.done.wait()
        return try outcome.result.get()
    }

    /// Queues `work` for the next group-committed transaction; `completion` runs once that transaction is durable
    /// (or failed), on a serial queue that calls the completions in commit order. `selfContained`: see the type's
    /// documentation. `background`: a long job (an index build window) that runs in a transaction of its own
    /// and lets the writes queued before it go first.
    func submit<T>(
        size: Int, selfContained: Bool = false, background: Bool = false,
        _ work: @escaping (SQLiteWriteTransaction) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        let job = TypedJob(
            size: size, selfContained: selfContained, background: background, work: work, completion: completion)
        condition.lock()
        guard !stopped else {
            condition.unlock()
            completion(.failure(APIError.unavailable("the store is closed")))
            return
        }
        queue.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Whether a write (a job that is not a background job) is queued: a background job running on the writer
    /// thread may end early to let it go next.
    var writesWaiting: Bool {
        condition.lock()
        defer { condition.unlock() }
        return queue.contains { !$0.background }
    }

    /// Carries a blocking submit's result from the acknowledgement queue to the waiting caller (`result` is
    /// written before `done` is raised and read after).
    private final class Outcome<T>: @unchecked Sendable {
        var result: Result<T, any Error> = .failure(APIError.unavailable("the store is closed"))
        let done = Wakeup()
    }

    /// Finishes queued work and stops the thread; later submits fail with 503.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
        thread.join()
        acknowledgements.stop()
    }

    private func run() {
        while let batch = nextBatch() {
            cycle = SQLiteWriterCycle(
                jobs: batch.count, backgroundJobs: batch.count { $0.background },
                oldestQueued: batch.map(\.queued).min() ?? 0)
            beforeTransaction()
            cycle.checkpointWaitDone()
            commit(batch)
            cycle.finish()
            if let log, cycle.longestWait >= SQLiteWriterCycle.slowSeconds { log(cycle.description) }
            maintenance(transaction)
        }
        acknowledgements.sync {}
    }

    private func nextBatch() -> [Job]? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !stopped { condition.wait() }
        if queue.isEmpty { return nil }
        let taken = SQLiteWriterQueue.nextBatch(
            queue.map { ($0.size, $0.background) }, maxWrites: Self.maxBatchWrites,
            afterBackground: lastBatchWasBackground)
        let batch = taken.map { queue[$0] }
        if taken.last == taken.count - 1 {
            queue.removeFirst(taken.count)  // a prefix, the usual case: one move, not one per job
        } else {
            for index in taken.reversed() { queue.remove(at: index) }
        }
        lastBatchWasBackground = batch.first?.background ?? false
        return batch
    }

    private func commit(_ batch: [Job]) {
        do {
            try transaction.begin()
        } catch {
            for job in batch { job.fail(error) }
            return acknowledge(batch)
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
                        acknowledge([job])
                        var rest = batch
                        rest.remove(at: index)
                        return commit(rest)
                    }
                }
                transaction.keepJobState()
                continue
            }
            do {
                try transaction.savepoint()
                try job.run(transaction)
                try transaction.release()
            } catch {
                transaction.rollbackToSavepoint()
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
        acknowledge(batch)
    }

    /// Calls the jobs' completions, and drops the jobs, off the writer thread.
    private func acknowledge(_ jobs: [Job]) {
        acknowledgements.async { for job in jobs { job.finish() } }
    }
}
