import Foundation

/// A value shared between test threads or tasks, behind a lock (a class, so escaping closures can capture it).
public final class Shared<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, holding the lock.
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the value now.
    public var current: Value { withLock { $0 } }
}
