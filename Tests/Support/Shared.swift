import Foundation

/// A value shared between test threads or tasks, behind a lock (a class, so escaping closures can capture it).
/// Shared by several test targets (they cannot import each other): symlinked into each one's Support folder.
final class Shared<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    var current: Value { withLock { $0 } }
}
