import KuraCore
import Synchronization

/// The serialization core every engine's writer is built on (`SQLiteWriter`, `PostgresWriter`): one writer thread,
/// a queue of jobs in submission order, and a serial acknowledgement queue that hands each job's outcome to its
/// submitter in commit order, off the writer thread.
///
/// Callers `submit` a job and either block or get a completion callback (so a server thread is not held while the
/// commit waits for its fsync: that is what lets many concurrent writes share one). The engine's loop runs on the
/// writer thread (`start`): it takes a batch (`nextBatch`, everything queued up to a batch limit: group commit),
/// runs its jobs in one transaction, and `acknowledge`s them once the transaction is durable or failed. The engine
/// keeps only what differs: its transaction, what it does between batches, and how it overlaps them.
///
/// Ordering: jobs run in the order they were queued, except where the engine takes them otherwise
/// (`nextBatch(waiting:choose:)`, `requeue`); completions run in the order of `acknowledge` calls, one at a time.
package final class WriterQueue<Input, Attributes>: Sendable {
    package typealias Job = WriterJob<Input, Attributes>

    private struct State {
        var jobs: [Job] = []
        var stopped = false
    }

    private let state = Mutex(State())
    /// Raised on each submit and on `stop`; the writer thread waits on it while the queue is empty.
    private let queued = Wakeup()
    private let thread: ServiceThread
    /// Runs the completions of acknowledged jobs, in acknowledgement order, off the writer thread.
    private let acknowledgements: SerialQueue
    /// The outcome of a job that never ran (e.g. its transaction broke before its turn).
    private let unsettled: any Error
    /// Called with the queue's length after each submit, under the queue's lock (`withJobs`).
    private let onQueued: (@Sendable (Int) -> Void)?

    /// A queue whose writer thread is named `threadName` and whose completions run on a thread named
    /// `acknowledgementsName` (15 bytes at most of each are kept). `unsettled`: the outcome of a job acknowledged
    /// without having run. `onQueued`: see the property.
    package init(
        threadName: String, acknowledgementsName: String,
        unsettled: any Error = APIError.unavailable("the store is closed"),
        onQueued: (@Sendable (Int) -> Void)? = nil
    ) {
        thread = ServiceThread(name: threadName)
        acknowledgements = SerialQueue(name: acknowledgementsName)
        self.unsettled = unsettled
        self.onQueued = onQueued
    }

    /// The writer thread, for the checks of a transaction that only it may use.
    package var writerThread: WriterThread { WriterThread(thread) }

    /// Starts the writer thread running `loop`, the engine's batch loop, which ends when `nextBatch` returns nil
    /// (after `stop`). Completions queued by then run before the thread ends. Call once. `loop` is `sending`: it
    /// carries what only the writer thread touches (the connection, the transaction it makes there).
    package func start(_ loop: sending @escaping () -> Void) {
        thread.start { [acknowledgements] in
            loop()
            acknowledgements.sync {}
        }
    }

    // MARK: Submitting

    /// Runs `work` in the writer's next batch and returns its result once the engine acknowledged it (its
    /// transaction is durable); rethrows the error the job failed with.
    package func submit<T: Sendable>(
        size: Int, selfContained: Bool, attributes: Attributes, _ work: @escaping (Input) throws -> T
    ) throws -> T {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        let done = Wakeup()
        submit(size: size, selfContained: selfContained, attributes: attributes, work) { result in
            outcome.withLock { $0 = result }
            done.raise()
        }
        done.wait()
        return try outcome.withLock { $0 }!.get()
    }

    /// Queues `work` for the writer's next batch; `completion` runs once the engine acknowledged the job, on the
    /// acknowledgement queue, in acknowledgement order. After `stop` it fails at once with 503 `UNAVAILABLE`.
    package func submit<T: Sendable>(
        size: Int, selfContained: Bool, attributes: Attributes, _ work: @escaping (Input) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        let job = Job(
            size: size, selfContained: selfContained, attributes: attributes, unsettled: unsettled, work: work,
            completion: completion)
        let accepted = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.jobs.append(job)
            onQueued?(state.jobs.count)
            return true
        }
        guard accepted else { return completion(.failure(APIError.unavailable("the store is closed"))) }
        queued.raise()
    }

    // MARK: The writer thread's side

    /// The next batch, taken from the queue: the jobs `choose` picks (indices into the queue, ascending, at least
    /// one; called under the queue's lock, with the queue not empty). Waits for a job while the queue is empty,
    /// unless not `waiting`; nil when the queue is empty and either not `waiting` or stopped.
    package func nextBatch(waiting: Bool = true, choose: ([Job]) -> [Int]) -> [Job]? {
        while true {
            // nil: wait for a job; an empty batch: none to be had.
            let next = state.withLock { state -> [Job]? in
                if state.jobs.isEmpty { return waiting && !state.stopped ? nil : [] }
                let taken = choose(state.jobs)
                let batch = taken.map { state.jobs[$0] }
                if taken.last == taken.count - 1 {
                    state.jobs.removeFirst(taken.count)  // a prefix, the usual case: one move, not one per job
                } else {
                    for index in taken.reversed() { state.jobs.remove(at: index) }
                }
                return batch
            }
            guard let batch = next else {
                queued.wait()
                continue
            }
            return batch.isEmpty ? nil : batch
        }
    }

    /// The next batch: the jobs at the front of the queue, up to `maxWrites` writes in all (the first job alone
    /// may hold more). See `nextBatch(waiting:choose:)`.
    package func nextBatch(waiting: Bool = true, maxWrites: Int) -> [Job]? {
        nextBatch(waiting: waiting) { Self.prefix(of: $0, maxWrites: maxWrites) }
    }

    /// The indices of the jobs at the front of `jobs` holding at most `maxWrites` writes in all (the first one
    /// alone may hold more).
    package static func prefix(of jobs: [Job], maxWrites: Int) -> [Int] {
        var count = 0
        var size = 0
        for job in jobs {
            if count > 0 && size + job.size > maxWrites { break }
            count += 1
            size += job.size
        }
        return Array(0..<count)
    }

    /// Runs `body` on the queued jobs under the queue's lock (to look at them, or take or put back jobs out of
    /// the usual order).
    package func withJobs<R>(_ body: (inout [Job]) -> R) -> R {
        state.withLock { body(&$0.jobs) }
    }

    /// Queues `jobs` again, first, in their order (a batch that is to run again).
    package func requeue(_ jobs: [Job]) {
        state.withLock { $0.jobs.insert(contentsOf: jobs, at: 0) }
    }

    /// Hands `jobs`' outcomes to their submitters on the acknowledgement queue, after those acknowledged before,
    /// and drops the jobs there (their work and its captures were allocated on other threads).
    package func acknowledge(_ jobs: [Job]) {
        acknowledgements.async { for job in jobs { job.finish() } }
    }

    /// Lets the writer finish what is queued, waits for its thread and the acknowledgements to end; later submits
    /// fail with 503 `UNAVAILABLE`. Once: later calls return at once.
    package func stop() {
        let wasStopped = state.withLock { state in
            defer { state.stopped = true }
            return state.stopped
        }
        if wasStopped { return }
        queued.raise()
        thread.join()
        acknowledgements.stop()
    }
}
