import CLibUV
import KuraCore
import KuraModel
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Runs blocking work (disk, crypto, network) off the event loops, on libuv's thread pool, and resumes on the loop
/// that asked. Bounded: at most `maxQueued` jobs wait or run at once; past that `submit` throws 503 `UNAVAILABLE`
/// instead of growing memory.
///
/// A loop ends only once every job it submitted has finished (libuv keeps it running), so a stopping server waits
/// for them; when the shutdown grace period is over, jobs that have not started are cancelled instead
/// (`EventLoop.cancelQueuedWork`: their completion gets 503 `UNAVAILABLE`), so the wait is for running jobs only.
public final class WorkerPool: Sendable {
    /// Threads in the pool (libuv's `UV_THREADPOOL_SIZE`, fixed for the life of the process).
    public let threads: Int
    public let maxQueued: Int
    private let queued = Atomic<Int>(0)

    /// Sets the thread count for libuv's pool; the first pool created in a process decides it, and an
    /// `UV_THREADPOOL_SIZE` already in the environment wins.
    public init(threads: Int, maxQueued: Int) {
        self.threads = max(1, min(threads, 1024))
        self.maxQueued = max(1, maxQueued)
        // setenv rewrites `environ`, which races with any thread reading it (Foundation's Process.run copies it:
        // a test process starting servers and child processes at once crashed there). So only when unset: the
        // test runner sets it (Makefile), and in `kura serve` this runs once, at start-up.
        if getenv("UV_THREADPOOL_SIZE") == nil { setenv("UV_THREADPOOL_SIZE", String(self.threads), 0) }
    }

    /// Jobs waiting or running now.
    public var pending: Int { queued.load(ordering: .relaxed) }

    /// Runs `work` on a pool thread, then `completion` on `loop`'s thread with the result.
    public func submit<T: Sendable>(
        on loop: EventLoop, _ work: @escaping @Sendable () throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) throws {
        let (_, admitted) = queued.add(1, ordering: .relaxed)  // (old, new)
        guard admitted <= maxQueued else {
            queued.subtract(1, ordering: .relaxed)
            throw APIError.busy("the server is busy: worker queue full (\(maxQueued) jobs); retry later")
        }
        let job = WorkJob(
            run: {
                let result = Result { try work() }
                return { completion(result) }
            },
            cancelled: { completion(.failure(APIError.unavailable("the server is stopping"))) })
        let enqueue: @Sendable () -> Void = { [self] in
            let request = UnsafeMutablePointer<uv_work_t>.allocate(capacity: 1)
            request.pointee.data = Unmanaged.passRetained(job).toOpaque()
            job.pool = self
            job.loop = loop
            loop.queuedWork.insert(request)
            uv_queue_work(
                loop.uvLoop, request,
                { request in
                    let job = Unmanaged<WorkJob>.fromOpaque(request!.pointee.data).takeUnretainedValue()
                    job.finish = job.run()
                },
                { request, status in
                    let job = Unmanaged<WorkJob>.fromOpaque(request!.pointee.data).takeRetainedValue()
                    job.loop?.queuedWork.remove(request!)
                    request!.deallocate()
                    job.pool?.queued.subtract(1, ordering: .relaxed)
                    if status == UV_ECANCELED.rawValue { job.cancelled() } else { job.finish?() }
                })
        }
        if loop.inEventLoop { enqueue() } else { loop.execute(enqueue) }
    }
}

/// One queued job; `run` executes on a pool thread and returns what to do back on the loop; `cancelled` runs on
/// the loop instead when the job was cancelled before it started.
private final class WorkJob: @unchecked Sendable {
    // `@unchecked`: `finish`, `pool` and `loop` are set on the loop before libuv queues the job and read on the loop
    // after it ran (libuv's queue orders the two); `run` is the only part a pool thread calls.
    let run: () -> (() -> Void)
    let cancelled: () -> Void
    var finish: (() -> Void)?
    var pool: WorkerPool?
    var loop: EventLoop?
    init(run: @escaping () -> (() -> Void), cancelled: @escaping () -> Void) {
        self.run = run
        self.cancelled = cancelled
    }
}
