import Foundation
internal import KuraModel

/// A value shared between tasks and threads, guarded by a lock. (`Synchronization.Mutex` would do, but needs
/// iOS 18 / macOS 15; this works everywhere Foundation does.)
final class Locked<Value>: @unchecked Sendable {
    // `@unchecked`: `value` is read and written with `lock` held only.
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the value now.
    var current: Value { withLock { $0 } }
}
