#if canImport(Glibc)
    import Glibc
#endif

/// A mutex and a condition variable whose timed waits count on `MonotonicClock` (`CLOCK_MONOTONIC`). Use it where
/// `NSCondition` would be used with a timeout: `NSCondition.wait(until: Date)` waits for a wall-clock date, so a
/// clock set back an hour makes a one-second wait last an hour and one.
public final class MonotonicCondition: @unchecked Sendable {
    // `@unchecked`: a pthread mutex and condition variable, made to be used from many threads; the pointers never
    // change.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Takes the mutex.
    public func lock() { pthread_mutex_lock(mutex) }

    /// Releases the mutex.
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Wakes one waiter.
    public func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiter.
    public func broadcast() { pthread_cond_broadcast(condition) }

    /// Waits (with the mutex held) until signalled; may wake spuriously, so wait in a loop.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits (with the mutex held) until signalled or `deadline` (`MonotonicClock.nanoseconds()`) passes; returns
    /// `false` once the deadline has passed. May wake spuriously, so wait in a loop.
    @discardableResult
    public func wait(untilNanoseconds deadline: UInt64) -> Bool {
        var until = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex, &until) != ETIMEDOUT
    }

    /// Runs `body` with the mutex held.
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
