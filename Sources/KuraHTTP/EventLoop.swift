import CLibUV
import KuraCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One libuv loop running on its own thread. Everything that touches the loop's handles runs on that thread;
/// other threads hand work to it with `execute`, which wakes the loop through a `uv_async_t`.
public final class EventLoop: @unchecked Sendable {
    // `@unchecked`: the libuv handles are touched on the loop's thread only; other threads use `execute`, which goes
    // through the `jobs` mutex and `uv_async_send` (thread-safe).
    /// Position of this loop in its group, used in request ids and logs.
    public let index: Int
    let uvLoop: UnsafeMutablePointer<uv_loop_t>
    private let wakeup: UnsafeMutablePointer<uv_async_t>
    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let thread: ServiceThread

    init(index: Int) {
        self.index = index
        thread = ServiceThread(name: "kura-loop-\(index)")
        uvLoop = .allocate(capacity: 1)
        uv_loop_init(uvLoop)
        wakeup = .allocate(capacity: 1)
        uv_async_init(uvLoop, wakeup) { handle in
            guard let data = handle?.pointee.data else { return }
            Unmanaged<EventLoop>.fromOpaque(data).takeUnretainedValue().runJobs()
        }
        wakeup.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        uv_loop_close(uvLoop)
        uvLoop.deallocate()
        wakeup.deallocate()
    }

    /// Work this loop queued on libuv's pool (`WorkerPool.submit`) that has not finished. Loop thread only.
    var queuedWork = Set<UnsafeMutablePointer<uv_work_t>>()

    /// Cancels the queued work that has not started on a pool thread (each job's completion then gets 503
    /// `UNAVAILABLE`, on this loop); running work finishes. Returns how many were cancelled. Loop thread only.
    @discardableResult
    func cancelQueuedWork() -> Int {
        var cancelled = 0
        for request in queuedWork {
            if uv_cancel(UnsafeMutableRawPointer(request).assumingMemoryBound(to: uv_req_t.self)) == 0 {
                cancelled += 1
            }
        }
        return cancelled
    }

    /// Whether the caller is running on this loop's thread.
    public var inEventLoop: Bool { thread.isCurrent }

    /// Runs `job` on the loop thread soon. Safe from any thread.
    public func execute(_ job: @escaping @Sendable () -> Void) {
        jobs.withLock { $0.append(job) }
        uv_async_send(wakeup)
    }

    private func runJobs() {
        let batch = jobs.withLock { pending -> [@Sendable () -> Void] in
            let taken = pending
            pending.removeAll(keepingCapacity: true)
            return taken
        }
        for job in batch { job() }
    }

    /// Starts the loop thread. Handles created before this call were set up from the caller's thread while the
    /// loop was not running, which libuv allows.
    func start() {
        // The loop sleeps in `uv_run`, not in `ServiceThread.sleep`: it stops when its handles are closed
        // (`closeWakeup`), so `join` is the only part of the thread's stop it uses.
        thread.start { [self] in
            uv_run(uvLoop, UV_RUN_DEFAULT)
            // Drain jobs queued while the loop was stopping, then let closing handles finish.
            runJobs()
            uv_run(uvLoop, UV_RUN_DEFAULT)
        }
    }

    /// Closes the wake-up handle so `uv_run` returns once every other handle is closed. Loop thread only.
    func closeWakeup() {
        uv_close(UnsafeMutableRawPointer(wakeup).assumingMemoryBound(to: uv_handle_t.self), nil)
    }

    /// Waits for the loop thread to end.
    func join() {
        thread.join()
    }

    /// Milliseconds of the loop's cached clock. Loop thread only.
    var now: UInt64 { uv_now(uvLoop) }
}

/// Allocates a libuv handle of type `T` and returns it with its `uv_handle_t` view.
@inline(__always)
func allocateHandle<T>(_ type: T.Type) -> UnsafeMutablePointer<T> { .allocate(capacity: 1) }

@inline(__always)
func asHandle<T>(_ pointer: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<uv_handle_t> {
    UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: uv_handle_t.self)
}

@inline(__always)
func asStream<T>(_ pointer: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<uv_stream_t> {
    UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: uv_stream_t.self)
}

/// Close callback for handles allocated with `allocateHandle`: frees their memory.
let freeHandleOnClose: uv_close_cb = { handle in
    handle?.deallocate()
}
