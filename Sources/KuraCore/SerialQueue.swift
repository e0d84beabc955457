import Synchronization

/// Jobs run one at a time, in the order queued, on one named `ServiceThread` of their own (the store's
/// acknowledgements, index builds). Unlike a `DispatchQueue`, its thread has a name in `top -H` and a debugger,
/// and `stop()` ends it. The thread starts with the first job, so a queue that is never used costs no thread.
public final class SerialQueue: @unchecked Sendable {
    private let thread: ServiceThread
    private let state = Mutex(State())

    private struct State {
        var jobs: [@Sendable () -> Void] = []
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
        enum Next { case wake, start, runHere }
        let next = state.withLock { state -> Next in
            if state.ended { return .runHere }
            state.jobs.append(job)
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
            if runQueued() { continue }
            thread.sleep(nanoseconds: nil)
        }
        drainAndEnd()
    }

    /// Runs the jobs queued now; returns whether there were any.
    private func runQueued() -> Bool {
        let jobs = state.withLock { state -> [@Sendable () -> Void] in
            let taken = state.jobs
            state.jobs.removeAll(keepingCapacity: true)
            return taken
        }
        for job in jobs { job() }
        return !jobs.isEmpty
    }

    /// Runs what is queued until nothing is, then marks the queue ended (later jobs run on their caller).
    private func drainAndEnd() {
        while true {
            let jobs = state.withLock { state -> [@Sendable () -> Void] in
                let taken = state.jobs
                state.jobs.removeAll()
                if taken.isEmpty { state.ended = true }
                return taken
            }
            if jobs.isEmpty { return }
            for job in jobs { job() }
        }
    }
}
