import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A long-lived thread of the server: the event loops, the store's writer and its acknowledgements, the change
/// feed, the mail worker, maintenance. Every one is made here, so they all start, stop and show up the same way:
/// the thread carries `name` in the kernel (`top -H`, `ps -L`, gdb, `/proc/<pid>/task/*/comm`; Linux keeps 15
/// bytes of it), `stop()` asks it to end and joins it, and its `sleep` measures time on `MonotonicClock`.
///
/// The body is a loop of the caller's that checks `isStopping` and sleeps with `sleep(nanoseconds:)`; `wake()`
/// (and `stop()`) cut such a sleep short.
public final class ServiceThread: @unchecked Sendable {
    // `@unchecked`: `handle` is written in `start` with `startLock` held, and read in `join` only after `join` took
    // that lock and found the thread started; the rest is atomic or immutable.
    /// The thread's name, as given (the kernel keeps its first 15 bytes).
    public let name: String
    private let stackSize: Int?
    private let wakeup = Wakeup()
    private let stopping = Atomic<Bool>(false)
    /// `pthread_self()` of the running thread, 0 before it starts.
    private let identity = Atomic<UInt>(0)
    /// Guarded by `startLock`: whether `start` created the thread (and `join` has not yet reaped it).
    private let startLock = Mutex<(started: Bool, joined: Bool)>((false, false))
    private var handle = pthread_t()

    /// A thread named `name` (keep it within 15 bytes, `kura-` included), not yet started. `stackSize` in bytes;
    /// `nil` takes the system default (`ulimit -s`, usually 8 MiB).
    public init(name: String, stackSize: Int? = nil) {
        self.name = name
        self.stackSize = stackSize
    }

    /// Starts the thread running `body`. Call once. `body` is `sending`: the thread is the only one to run it, so
    /// it may carry state that belongs to the thread alone (a writer's connection and batch loop).
    public func start(_ body: sending @escaping () -> Void) {
        let context = Unmanaged.passRetained(Start(thread: self, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
        startLock.withLock { state in
            precondition(!state.started, "service thread \(name) started twice")
            let rc = pthread_create(
                &handle, &attributes,
                { argument in
                    let start = Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue()
                    start.thread.identity.store(UInt(pthread_self()), ordering: .releasing)
                    ServiceThread.nameCurrentThread(start.thread.name)
                    start.body()
                    return nil
                }, context)
            precondition(rc == 0, "pthread_create for \(name) failed: \(rc)")
            state.started = true
        }
    }

    /// Gives the calling thread `name` in the kernel. Through `/proc/thread-self/comm` because Glibc's
    /// `pthread_setname_np` is a GNU extension Swift does not import (and `prctl` is variadic).
    private static func nameCurrentThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    private final class Start {
        let thread: ServiceThread
        let body: () -> Void
        init(thread: ServiceThread, body: @escaping () -> Void) {
            self.thread = thread
            self.body = body
        }
    }

    /// Whether `stop()` or `requestStop()` was called. The body's loop checks it.
    public var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Whether the caller runs on this thread.
    public var isCurrent: Bool {
        let current = identity.load(ordering: .acquiring)
        return current != 0 && current == UInt(pthread_self())
    }

    /// Cuts the thread's current (or next) `sleep` short. Safe from any thread.
    public func wake() { wakeup.raise() }

    /// Sleeps until `wake()`, `stop()`, or `nanoseconds` pass on the monotonic clock (`nil`: until woken).
    /// Returns whether it was woken. Call from the thread itself.
    @discardableResult
    public func sleep(nanoseconds: UInt64?) -> Bool {
        if isStopping { return true }
        return wakeup.wait(timeoutNanoseconds: nanoseconds)
    }

    /// Asks the body to end (sets `isStopping` and wakes it) without waiting.
    public func requestStop() {
        stopping.store(true, ordering: .releasing)
        wakeup.raise()
    }

    /// Waits for the thread to end; returns at once if it never started or was joined already. From the thread
    /// itself (its owner's last reference dropped there, say) it cannot wait: the thread is detached instead, and
    /// ends when its body returns.
    public func join() {
        let join = startLock.withLock { state -> Bool in
            guard state.started, !state.joined else { return false }
            state.joined = true
            return true
        }
        guard join else { return }
        if isCurrent {
            pthread_detach(handle)
        } else {
            pthread_join(handle, nil)
        }
    }

    /// `requestStop()`, then `join()`.
    public func stop() {
        requestStop()
        join()
    }
}
