import Foundation
import KuraCore
import KuraModel
import KuraStore

/// Wakes the change feed: poked after every local commit, waited on by the feed's thread with a timeout (the poll
/// that picks up other processes' writes).
public final class ChangeSignal: Sendable {
    private let wakeup = Wakeup()

    public init() {}

    /// Wakes the waiter (cheap; safe from any thread, including the store's completion queue).
    public func poke() { wakeup.raise() }

    /// Waits until poked or `seconds` passed (on the monotonic clock); returns whether it was poked.
    @discardableResult
    func wait(seconds: Double) -> Bool {
        wakeup.wait(timeoutNanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }
}

/// A `DocumentStore` that pokes a `ChangeSignal` after each commit, so listeners hear of a write as soon as it
/// is durable (before the writer's answer is sent), not at the next poll.
public final class ChangeNotifyingStore: DocumentStoreDecorator {
    public let base: any DocumentStore
    public let signal: ChangeSignal

    public init(base: any DocumentStore, signal: ChangeSignal) {
        self.base = base
        self.signal = signal
    }

    public func commit(_ writes: [Write]) throws -> [WriteResult] {
        defer { signal.poke() }
        return try base.commit(writes)
    }

    public func commit(
        _ writes: [Write], completion: @escaping @Sendable (Result<[WriteResult], any Error>) -> Void
    ) {
        let signal = self.signal
        base.commit(writes) { result in
            signal.poke()
            completion(result)
        }
    }
}
