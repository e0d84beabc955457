import Foundation
import KuraCore
import KuraModel
import KuraPostgres
import KuraStore
import Synchronization

/// This node's writer: one thread draining a queue of commits into batch transactions (the SQLite engine's
/// group commit, `SQLiteWriter`, on PostgreSQL).
///
/// The queue, the writer thread, submitting (blocking or with a completion) and the acknowledgements in commit order
/// are the engines' shared core, `WriterQueue` (KuraStore); this type is what only PostgreSQL adds: the pooled
/// connection per batch, the advisory locks, bulk and create batches, retries, and the overlap of batches
/// (below), which is why its batch loop (`PostgresWriterLoop`) is its own and not the SQLite writer's. The writer
/// thread takes everything queued (up to `maxBatchWrites` writes), runs it in one READ COMMITTED
/// transaction on a pooled connection, takes the batch's change-log numbers from `ChangeSequence` as the last
/// statement before COMMIT, sends `NOTIFY kura_changes, '<newest seq>'` in the same transaction, and calls the
/// completions once COMMIT returned. The span other committers (on every node) wait for is thereby one per batch,
/// not one per write (docs/design/scaling.md, "Change-log order on PostgreSQL").
///
/// One failing commit must not take its batch with it. A commit of several writes runs inside its own SAVEPOINT
/// and rolls back alone. A single write runs without one (two round trips saved): it fails, if at all, before it
/// changes a row (preconditions are checked in Swift; inserts use `ON CONFLICT DO NOTHING`, which does not abort
/// the transaction). Should a statement fail anyway (PostgreSQL then aborts the whole transaction), the
/// transaction is rolled back and the rest of the batch runs again in a new one. Deadlocks and serialization
/// failures are retried a few times. Two nodes' batches writing the same documents would deadlock whenever they
/// took their row locks in different orders, so each batch first takes a transaction-level advisory lock per
/// document it writes, all batches in one order (the keys sorted), in the same round trip as BEGIN.
///
/// Single-create commits (blind creates, the common `POST` of a new document) that follow each other in the queue
/// run together: one statement inserts all their documents and index entries (`createAll`), and the ones whose
/// path exists already fail alone. A batch of such creates costs three round trips however many it holds: BEGIN
/// with the locks, the inserts, and the change entries pipelined with COMMIT.
///
/// A batch of nothing but such creates, in collections this node knows, goes out as one pipeline of BEGIN, the
/// locks, one statement and COMMIT (`sendCreateBatch`, PostgresWriteTransaction+CreateBatch): one round trip.
///
/// The writer does not wait for a batch's COMMIT (and its WAL flush) before it starts the next batch: it sends the
/// last statement and COMMIT, runs the next batch's statements on a second connection and sends its last statement
/// and COMMIT too, then reads the first batch's answer and acknowledges it. The second batch's change numbers wait
/// on the server until the first one committed (`ChangeSequence`), so commits stay one at a time and in order.
/// A create batch is the exception: the writer waits for its answer before it takes the next batch from the
/// queue, unless at least three quarters as many creates as it holds queue first. Those then go out as the next
/// create batch on the same connection, behind it, and the server runs them as soon as the first one committed:
/// the server does not wait for the writer to plan and send each batch, and the batches stay about as large as
/// the creates arriving meanwhile make them (overlapping on a second connection split them into smaller ones,
/// and each batch costs the server a few hundred µs beyond its rows; docs/design/scaling.md, "Where a create's
/// time goes"). A batch that fails leaves its transaction aborted on the server, so the one behind it fails too
/// and both run again as usual batches.
final class PostgresWriter: Sendable {
    /// What a job runs on: the batch's transaction, or, for a blind create run in bulk with its neighbours
    /// (`createAll`, `sendCreateBatch`), that create's result.
    enum Step {
        case transaction(PostgresWriteTransaction)
        case created(WriteResult)
    }

    /// What PostgreSQL keeps per job.
    struct JobAttributes {
        /// Advisory lock keys of the documents it writes (`PostgresWriteTransaction.lockKey`).
        let lockKeys: [Int64]
        /// The commit's one write, a blind create, when it may run in bulk with its neighbours (`createAll`);
        /// cleared when a bulk insert failed, so it runs alone on the next attempt.
        var bulkCreate: PreparedWrite?
        /// Times its batch's COMMIT failed with a deadlock or serialization failure (it is then queued again).
        var commitAttempts = 0
        /// Whether it may go out in a create batch (`sendCreateBatch`): a bulk create not attempted before.
        var fitsCreateBatch: Bool { bulkCreate != nil && commitAttempts == 0 }
    }

    fileprivate typealias Job = WriterJob<Step, JobAttributes>

    /// Most writes per batch transaction.
    static let maxBatchWrites = 2000
    /// Attempts of a batch (or one commit) that hit a deadlock or serialization failure.
    static let maxAttempts = 4

    /// Batch transactions committed so far (tests tell batches apart by it).
    let batchesCommitted = Atomic<Int>(0)
    /// Of those, create batches (`sendCreateBatch`).
    let createBatchesCommitted = Atomic<Int>(0)
    /// Create batches sent behind another one on its connection (`followingCreates`).
    let createBatchesFollowing = Atomic<Int>(0)
    fileprivate let core: WriterQueue<Step, JobAttributes>

    /// Starts the writer thread. `afterBegin` runs right after BEGIN with the catalog version BEGIN read (the
    /// catalog check: PostgresDocumentStore+CompositeIndexes); `maintenance` between batches (change-log pruning);
    /// `catalogVersion` is the composite catalog version this node's catalog was loaded at (create batches are
    /// planned with it). All three run on the writer thread only.
    init(
        pool: PostgresConnectionPool, composites: CompositeIndexCatalog, log: (@Sendable (String) -> Void)?,
        afterBegin: sending @escaping (PostgresConnection, Int64) throws -> Void,
        maintenance: sending @escaping (PostgresConnection) -> Void, catalogVersion: sending @escaping () -> Int64
    ) {
        // Armed while the writer waits for a create batch's answer (`followingCreates`).
        let wakeup = QueueWakeup()
        core = WriterQueue(
            threadName: "kura-pg-writer", acknowledgementsName: "kura-pg-write-acks",
            unsettled: APIError.unavailable("the write was not committed (the database connection broke)"),
            onQueued: { wakeup.queued($0) })
        let loop = PostgresWriterLoop(
            writer: self, pool: pool, composites: composites, wakeup: wakeup, log: log, afterBegin: afterBegin,
            maintenance: maintenance, catalogVersion: catalogVersion)
        core.start { loop.run() }
    }

    /// Runs `work` inside the next batch transaction and returns its result once that transaction committed.
    /// If `work` throws, only its own changes are rolled back and the error is rethrown here.
    func submit<T: Sendable>(
        size: Int, selfContained: Bool = false, paths: [DocumentPath] = [],
        bulk: (create: PreparedWrite, result: (WriteResult) -> T)? = nil,
        _ work: @escaping (PostgresWriteTransaction) throws -> T
    ) throws -> T {
        try core.submit(
            size: size, selfContained: selfContained, attributes: Self.attributes(paths, bulk?.create),
            Self.steps(work, bulk: bulk?.result))
    }

    /// Queues `work` for the next batch transaction; `completion` runs once it committed (or failed), on a serial
    /// queue that calls the completions in commit order. `selfContained`: see the type's documentation. `paths`:
    /// the documents `work` writes, locked (in one global order) when the batch begins. `bulk`: the commit is
    /// this one blind create, which may run in bulk with its neighbours instead of through `work` (whose result
    /// `bulk.result` makes from the create's).
    func submit<T: Sendable>(
        size: Int, selfContained: Bool = false, paths: [DocumentPath] = [],
        bulk: (create: PreparedWrite, result: (WriteResult) -> T)? = nil,
        _ work: @escaping (PostgresWriteTransaction) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        core.submit(
            size: size, selfContained: selfContained, attributes: Self.attributes(paths, bulk?.create),
            Self.steps(work, bulk: bulk?.result), completion: completion)
    }

    private static func attributes(_ paths: [DocumentPath], _ bulkCreate: PreparedWrite?) -> JobAttributes {
        JobAttributes(lockKeys: paths.map(PostgresWriteTransaction.lockKey), bulkCreate: bulkCreate)
    }

    /// A job's work on either step: `work` on the transaction, `bulk` on its bulk create's result.
    private static func steps<T>(
        _ work: @escaping (PostgresWriteTransaction) throws -> T, bulk: ((WriteResult) -> T)?
    ) -> (Step) throws -> T {
        { step in
            switch step {
            case .transaction(let transaction): return try work(transaction)
            case .created(let result):
                // Only a job with a bulk create runs in bulk (`JobAttributes.bulkCreate` comes with `bulk`).
                guard let bulk else { throw NoBulkCreate() }
                return bulk(result)
            }
        }
    }

    private struct NoBulkCreate: Error {}

    /// Finishes queued work and stops the thread; later submits fail with 503.
    func stop() { core.stop() }

    /// Deadlocks (two nodes writing the same documents in different orders) and serialization failures.
    fileprivate static func isTransient(_ error: any Error) -> Bool {
        guard let error = error as? PostgresError else { return false }
        return error.isDeadlock || error.isSerializationFailure
    }

    /// What a caller sees of a failure: the error itself (a `PostgresError` is answered as an opaque 500 and
    /// logged by the server).
    static func answerable(_ error: any Error) -> any Error { error }
}

extension WriterJob where Input == PostgresWriter.Step {
    fileprivate func run(_ transaction: PostgresWriteTransaction) throws { try run(.transaction(transaction)) }

    /// Records the result of its bulk create.
    fileprivate func created(_ result: WriteResult) { try? run(.created(result)) }
}

/// What the writer thread alone touches: the transaction it makes, the batches in flight, the batch loop.
private final class PostgresWriterLoop {
    private typealias Job = PostgresWriter.Job
    private unowned let writer: PostgresWriter
    private let core: WriterQueue<PostgresWriter.Step, PostgresWriter.JobAttributes>
    private let pool: PostgresConnectionPool
    private let composites: CompositeIndexCatalog
    /// Armed while the writer waits for a create batch's answer (`followingCreates`).
    private let wakeup: QueueWakeup
    private let log: (@Sendable (String) -> Void)?
    private let afterBegin: (PostgresConnection, Int64) throws -> Void
    private let maintenance: (PostgresConnection) -> Void
    private let catalogVersion: () -> Int64
    /// Made on the writer thread when the loop starts (`run`).
    private var transaction: PostgresWriteTransaction!

    init(
        writer: PostgresWriter, pool: PostgresConnectionPool, composites: CompositeIndexCatalog, wakeup: QueueWakeup,
        log: (@Sendable (String) -> Void)?, afterBegin: @escaping (PostgresConnection, Int64) throws -> Void,
        maintenance: @escaping (PostgresConnection) -> Void, catalogVersion: @escaping () -> Int64
    ) {
        self.writer = writer
        core = writer.core
        self.pool = pool
        self.composites = composites
        self.wakeup = wakeup
        self.log = log
        self.afterBegin = afterBegin
        self.maintenance = maintenance
        self.catalogVersion = catalogVersion
    }

    /// A batch whose COMMIT was sent and not answered yet, on the connection it holds.
    private struct InFlight {
        var jobs: [Job]
        var connection: PostgresConnection
        var commit: Sent
    }

    private enum Sent {
        /// A usual batch's last statement and COMMIT.
        case batch(PostgresWriteTransaction.SentCommit)
        /// A whole create batch (`sendCreateBatch`).
        case creates(PostgresWriteTransaction.SentCreateBatch)
    }

    func run() {
        // Made here, on the writer thread, which it then checks on every use of its connection.
        transaction = PostgresWriteTransaction(composites: composites, writerThread: core.writerThread)
        var inFlight: InFlight?
        while true {
            // While a COMMIT is in flight, run the next batch if one is queued, else wait for the COMMIT.
            let batch = nextBatch(waiting: inFlight == nil)
            if batch == nil && inFlight == nil { break }
            var next: InFlight?
            if let batch {
                do {
                    // A second connection only if one is free: with every other one lent (or a pool of one),
                    // the COMMIT in flight completes first and gives its connection back.
                    var borrowed = inFlight == nil ? nil : try pool.borrowIfAvailable()
                    if borrowed == nil, let waiting = inFlight {
                        complete(waiting)
                        inFlight = nil
                    }
                    if borrowed == nil { borrowed = try pool.borrow() }
                    let connection = borrowed!
                    transaction.connection = connection
                    next = commit(batch)
                    transaction.connection = nil
                    if next == nil { pool.giveBack(connection) }
                } catch {
                    // No connection: nothing ran.
                    for job in batch { job.fail(PostgresWriter.answerable(error)) }
                    core.acknowledge(batch)
                }
            }
            if let inFlight { complete(inFlight) }
            inFlight = next
            if let sent = inFlight, case .creates = sent.commit {
                // A create batch is not overlapped with the next one, only followed (see the type's
                // documentation).
                completeCreates(sent)
                inFlight = nil
            }
            if inFlight == nil { try? pool.withConnection { maintenance($0) } }
        }
    }

    /// Waits for the COMMIT of `batch`, acknowledges its jobs, and gives its connection back (unless `followed`:
    /// another batch was sent behind it). A deadlock or serialization failure queues the batch's jobs again
    /// (first), a few times.
    private func complete(_ batch: InFlight, followed: Bool = false) {
        defer { if !followed { pool.giveBack(batch.connection) } }
        do {
            switch batch.commit {
            case .batch(let sent):
                try transaction.awaitFinish(sent, on: batch.connection)
            case .creates(let sent):
                switch try transaction.awaitCreateBatch(sent, on: batch.connection) {
                case .committed(let results, _):
                    writer.createBatchesCommitted.add(1, ordering: .relaxed)
                    for (job, result) in zip(batch.jobs, results) {
                        if let result {
                            job.created(result)
                        } else if let path = job.attributes.bulkCreate?.write.path {
                            job.fail(APIError.alreadyExists("document \(path) already exists"))
                        }
                    }
                case .catalogChanged(let version):
                    // Nothing was written. Reload the catalog, and run the creates again as a usual batch. (The
                    // batch following, planned with the same catalog, comes to the same and reloads it.)
                    if !followed { try? afterBegin(batch.connection, version) }
                    requeue(batch.jobs)
                    return
                }
            }
            writer.batchesCommitted.add(1, ordering: .relaxed)
        } catch {
            // Behind a failed batch, the one following fails too (its transaction is still aborted), and rolls
            // back.
            if !followed && batch.connection.isConnected && batch.connection.isInTransaction {
                try? batch.connection.execute("ROLLBACK")
            }
            if PostgresWriter.isTransient(error)
                && batch.jobs.allSatisfy({ $0.attributes.commitAttempts + 1 < PostgresWriter.maxAttempts })
            {
                requeue(batch.jobs)
                return
            }
            if case .creates = batch.commit, batch.connection.isConnected, !PostgresWriter.isTransient(error) {
                // The statement failed (nothing was written): run the creates again as a usual batch, where
                // a create that fails does so alone.
                requeue(batch.jobs)
                return
            }
            for job in batch.jobs where job.succeeded { job.fail(PostgresWriter.answerable(error)) }
            if !batch.connection.isConnected {
                log?("store: the connection broke during a commit of \(batch.jobs.count) job(s): \(error)")
            }
        }
        core.acknowledge(batch.jobs)
    }

    /// Waits for the answers of the create batch `first` and of the create batches sent behind it
    /// (`followingCreates`), acknowledging each.
    private func completeCreates(_ first: InFlight) {
        var current = first
        while let following = followingCreates(current) {
            complete(current, followed: true)
            current = following
        }
        complete(current)
    }

    /// The next create batch, sent on `batch`'s connection behind it once three quarters as many creates as it
    /// holds queued before its answer began to arrive; nil when the answer came first, or when the job at the
    /// front of the queue, or one of the creates, cannot go out in a create batch.
    private func followingCreates(_ batch: InFlight) -> InFlight? {
        let enough = max(1, batch.jobs.count * 3 / 4)
        while true {
            guard let arrived = try? batch.connection.pipelineAnswerArrived(), !arrived else { return nil }
            enum Next {
                case stop
                case send([Job])
                case wait
            }
            let next = core.withJobs { queue -> Next in
                if let front = queue.first, !front.attributes.fitsCreateBatch {
                    // The next batch is a usual one, which cannot follow: wait for the answer (`complete`).
                    return .stop
                }
                guard let jobs = Self.takeCreates(atLeast: enough, from: &queue) else {
                    wakeup.arm(length: enough)
                    return .wait
                }
                return .send(jobs)
            }
            let jobs: [Job]
            switch next {
            case .stop: return nil
            case .send(let taken): jobs = taken
            case .wait:
                wakeup.wait(socket: batch.connection.socket, timeoutMilliseconds: 1000)
                core.withJobs { _ in wakeup.disarm() }
                continue
            }
            transaction.connection = batch.connection
            defer { transaction.connection = nil }
            if let sent = try? transaction.sendCreateBatch(
                jobs.map { $0.attributes.bulkCreate! }, locking: Set(jobs.flatMap(\.attributes.lockKeys)),
                catalogVersion: catalogVersion())
            {
                writer.createBatchesFollowing.add(1, ordering: .relaxed)
                return InFlight(jobs: jobs, connection: batch.connection, commit: .creates(sent))
            }
            // Nothing was sent (a collection this node does not know yet): they wait for a usual batch.
            core.requeue(jobs)
            return nil
        }
    }

    /// The creates at the front of `queue` that may run as a create batch, taken from it, if there are at least
    /// `count` (under the queue's lock).
    private static func takeCreates(atLeast count: Int, from queue: inout [Job]) -> [Job]? {
        var taken = 0
        for job in queue {
            guard job.attributes.fitsCreateBatch && taken < PostgresWriter.maxBatchWrites else { break }
            taken += 1
        }
        guard taken >= count else { return nil }
        let jobs = Array(queue.prefix(taken))
        queue.removeFirst(taken)
        return jobs
    }

    /// Queues `jobs` again, first, counting the attempt (a job attempted before runs in a usual batch).
    private func requeue(_ jobs: [Job]) {
        for job in jobs { job.attributes.commitAttempts += 1 }
        core.requeue(jobs)
    }

    private func nextBatch(waiting: Bool) -> [Job]? {
        core.nextBatch(waiting: waiting, maxWrites: PostgresWriter.maxBatchWrites)
    }

    /// Runs `batch` in a transaction on `transaction.connection` up to its COMMIT, which it sends and returns in
    /// flight; nil when nothing is left to commit (every job failed and was acknowledged).
    private func commit(_ batch: [Job]) -> InFlight? {
        if batch.allSatisfy(\.attributes.fitsCreateBatch) {
            do {
                if let sent = try transaction.sendCreateBatch(
                    batch.map { $0.attributes.bulkCreate! }, locking: Set(batch.flatMap(\.attributes.lockKeys)),
                    catalogVersion: catalogVersion())
                {
                    return InFlight(jobs: batch, connection: transaction.connection, commit: .creates(sent))
                }
            } catch {
                // Nothing could be sent: the usual batch below finds out what is wrong with the connection.
                if transaction.connection.isConnected && transaction.connection.isInTransaction {
                    transaction.rollback()
                }
            }
        }
        var pending = batch
        var attempt = 0
        while !pending.isEmpty {
            attempt += 1
            do {
                let catalogVersion = try transaction.begin(locking: Set(pending.flatMap(\.attributes.lockKeys)))
                try afterBegin(transaction.connection, catalogVersion)
            } catch {
                transaction.rollback()
                if PostgresWriter.isTransient(error) && attempt < PostgresWriter.maxAttempts { continue }
                for job in pending { job.fail(PostgresWriter.answerable(error)) }
                core.acknowledge(pending)
                return nil
            }
            var redo: [Job]?
            var index = 0
            while index < pending.count {
                let job = pending[index]
                defer { index += 1 }
                if job.attributes.bulkCreate != nil {
                    var end = index + 1
                    while end < pending.count && pending[end].attributes.bulkCreate != nil { end += 1 }
                    let run = pending[index..<end]
                    index = end - 1
                    do {
                        let results = try transaction.createAll(run.map { $0.attributes.bulkCreate! })
                        transaction.keepJobState()
                        for (job, result) in zip(run, results) {
                            if let result {
                                job.created(result)
                            } else if let path = job.attributes.bulkCreate?.write.path {
                                job.fail(APIError.alreadyExists("document \(path) already exists"))
                            }
                        }
                    } catch {
                        // The transaction is aborted: start over, with these creates run one by one unless
                        // another attempt of the same may succeed.
                        transaction.rollback()
                        if !(PostgresWriter.isTransient(error) && attempt < PostgresWriter.maxAttempts) {
                            for job in run { job.attributes.bulkCreate = nil }
                        }
                        redo = pending
                        break
                    }
                    continue
                }
                if job.selfContained {
                    let before = transaction.modifications
                    do {
                        try job.run(transaction)
                        transaction.keepJobState()
                    } catch {
                        transaction.discardJobState()
                        if error is PostgresError || transaction.modifications != before {
                            // The transaction is aborted, or holds rows of the failed job: start over without it
                            // (or with it, when another attempt may succeed).
                            transaction.rollback()
                            if PostgresWriter.isTransient(error) && attempt < PostgresWriter.maxAttempts {
                                redo = pending
                            } else {
                                job.fail(PostgresWriter.answerable(error))
                                core.acknowledge([job])
                                var rest = pending
                                rest.remove(at: index)
                                redo = rest
                            }
                            break
                        }
                        job.fail(error)
                    }
                    continue
                }
                var jobAttempt = 0
                while true {
                    jobAttempt += 1
                    do {
                        try transaction.inSavepoint { try job.run(transaction) }
                    } catch {
                        if !transaction.connection.isConnected { break }
                        if PostgresWriter.isTransient(error) && jobAttempt < PostgresWriter.maxAttempts { continue }
                        job.fail(PostgresWriter.answerable(error))
                    }
                    break
                }
                if !transaction.connection.isConnected { break }
            }
            if let redo {
                pending = redo
                continue
            }
            do {
                return InFlight(
                    jobs: pending, connection: transaction.connection, commit: .batch(try transaction.sendFinish()))
            } catch {
                transaction.rollback()
                if PostgresWriter.isTransient(error) && attempt < PostgresWriter.maxAttempts { continue }
                for job in pending where job.succeeded { job.fail(PostgresWriter.answerable(error)) }
                if transaction.connection.isConnected == false {
                    log?("store: the connection broke during a commit of \(pending.count) job(s): \(error)")
                }
            }
            core.acknowledge(pending)
            return nil
        }
        return nil
    }
}
