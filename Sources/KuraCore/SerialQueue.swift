import Synchronization

/// Jobs run one at a time, in the order queued, on one named `ServiceThread` of their own (the store's
/// acknowledgements, index builds). Unlike a `DispatchQueue`, its thread has a name in `top -H` and a debugger,
/// and `stop()` ends it. The thread starts with the first job, so a queue that is never used costs no thread.
public final class SerialQueue: Sendable {
    private let thread: ServiceThread
    private let state = Mutex(State())

    private struct State {
        var jobs: [@Sendable () -> Void] = []
        /// Jobs queued with `async(after:)` that are not due yet: when (`MonotonicClock` nanoseconds) and what.
        var delayed: [(due: UInt64, job: @Sendable () -> Void)] = []
        var started = false
        /// `stop()` finished: later jobs run on the caller's thread.
        var ended = false
    }

    /// A queue whose thread will be named `name` (15 bytes at most are kept).
    public init(name: String) {
        thread = ServiceThread(name: name)
    }

    /// The thread's name.
    public var name: String { thread.name }

    /// Whether the caller runs on the queue's thread (inside one of its jobs).
    public var isCurrent: Bool { thread.isCurrent }

    /// Queues `job`. Jobs queued after `stop()` has begun still run if the thread has not ended yet; after it
    /// ended they run on the caller's thread, so no completion is ever lost.
    public func async(_ job: @escaping @Sendable () -> Void) {
        enqueue(job) { $0.jobs.append(job) }
    }

    /// Queues `job` to run once `seconds` have passed on the monotonic clock, after the jobs queued by then (a timer
    /// on the queue's own thread, instead of a GCD timer on a thread of its pool). A job still waiting when `stop()`
    /// is called runs then, early, so that no job is ever lost: a delayed job checks whether its owner stopped.
    public func async(after seconds: Double, _ job: @escaping @Sendable () -> Void) {
        let due = MonotonicClock.nanoseconds() + UInt64(max(0, seconds) * 1e9)
        enqueue(job) { $0.delayed.append((due, job)) }
    }

    /// Adds a job to the state with `add`, and starts or wakes the thread; after the queue ended, runs `job` here.
    private func enqueue(_ job: @Sendable () -> Void, _ add: (inout State) -> Void) {
        enum Next { case wake, start, runHere }
        let next = state.withLock { state -> Next in
            if state.ended { return .runHere }
            add(&state)
            if state.started { return .wake }
            state.started = true
            return .start
        }
        switch next {
        case .wake: thread.wake()
        case .start: thread.start { [self] in run() }
        case .runHere: job()
        }
    }

    /// Runs `body` on the queue after everything queued before it, and returns its result. `sync {}` waits for
    /// the queue to drain. Not from the queue's own thread (that would wait for itself).
    public func sync<T>(_ body: @escaping () -> T) -> T {
        precondition(!thread.isCurrent, "SerialQueue.sync called on \(name) itself")
        let call = SyncCall(body)
        async { call.run() }
        call.done.wait()
        return call.result!
    }

    /// One `sync` call: the body runs on the queue, the caller waits on `done`. `@unchecked`: `result` is written
    /// by the queue before `done` is raised and read by the caller after.
    private final class SyncCall<T>: @unchecked Sendable {
        let body: () -> T
        var result: T?
        let done = Wakeup()
        init(_ body: @escaping () -> T) { self.body = body }
        func run() {
            result = body()
            done.raise()
        }
    }

    /// Runs what is queued, then ends the thread and waits for it. Called from one of the queue's own jobs (the
    /// last reference to an owner that stops its queue in `deinit` may go away there), it only asks the thread to
    /// end after the jobs queued so far.
    public func stop() {
        thread.stop()
        drainAndEnd()
    }

    private func run() {
        while !thread.isStopping {
            let (jobs, nextDue) = takeDue(now: MonotonicClock.nanoseconds())
            if !jobs.isEmpty {
                for job in jobs { job() }
                continue
            }
            thread.sleep(nanoseconds: nextDue.map { $0 - min($0, MonotonicClock.nanoseconds()) })
        }
        drainAndEnd()
    }

    /// Takes the jobs queued and the delayed ones due at `now`, in that order, and says when the next delayed job
    /// is due (nil: none waits).
    private func takeDue(now: UInt64) -> (jobs: [@Sendable () -> Void], nextDue: UInt64?) {
        state.withLock { state in
            var taken = state.jobs
            state.jobs.removeAll(keepingCapacity: true)
            var nextDue: UInt64?
            state.delayed.removeAll { entry in
                if entry.due <= now {
                    taken.append(entry.job)
                    return true
                }
                nextDue = min(nextDue ?? entry.due, entry.due)
                return false
            }
            return (taken, nextDue)
        }
    }

    /// Runs what is queued until nothing is, then marks the queue ended (later jobs run on their caller).
    private func drainAndEnd() {
        while true {
            let jobs = state.withLock { state -> [@Sendable () -> Void] in
                let taken = state.jobs + state.delayed.map(\.job)
                state.jobs.removeAll()
                state.delayed.removeAll()
                if taken.isEmpty { state.ended = true }
                return taken
            }
            if jobs.isEmpty { return }
            for job in jobs { job() }
        }
    }
}
