/// A flag one thread raises and another sleeps on, with timeouts measured on `MonotonicClock`: a wall-clock step
/// (an administrator's `date -s`, a VM resumed) neither cuts a wait short nor stretches it.
public final class Wakeup: @unchecked Sendable {
    // `@unchecked`: `raised` is read and written with `condition`'s mutex held.
    private let condition = MonotonicCondition()
    /// Guarded by `condition`.
    private var raised = false

    public init() {}

    /// Raises the flag and wakes a waiter. Cheap; safe from any thread.
    public func raise() {
        condition.withLock {
            raised = true
            condition.broadcast()
        }
    }

    /// Waits until the flag is raised or `timeoutNanoseconds` passed on the monotonic clock (`nil`: no timeout),
    /// lowers it, and returns whether it was raised.
    @discardableResult
    public func wait(timeoutNanoseconds: UInt64? = nil) -> Bool {
        condition.withLock {
            if let timeoutNanoseconds {
                let deadline = MonotonicClock.nanoseconds() &+ timeoutNanoseconds
                while !raised && condition.wait(untilNanoseconds: deadline) {}
            } else {
                while !raised { condition.wait() }
            }
            let was = raised
            raised = false
            return was
        }
    }
}
