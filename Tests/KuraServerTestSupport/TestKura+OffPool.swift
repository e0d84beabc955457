import Foundation
import KuraServer

/// Runs blocking work (starting, stopping or removing an in-process node: it opens databases and joins threads)
/// on a thread of its own and waits for it without holding a thread of Swift's cooperative pool. The pool has one
/// thread per core and a target's async tests all run at once: when each test started and stopped its node on the
/// pool, every other test's awaits (listener callbacks, polling waits) stalled for seconds at a time on a 2-core
/// machine (up to 39 s measured under load), and waits that allow 10 s failed.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}

extension TestKura {
    /// `stop()` off the cooperative pool (see `offPool`).
    public func stopOffPool() async {
        _ = try? await offPool { self.stop() }
    }

    /// `start()` off the cooperative pool (see `offPool`).
    public func startOffPool() async throws {
        try await offPool { try self.start() }
    }

    /// `shutdown()` off the cooperative pool (see `offPool`).
    public func shutdownOffPool() async {
        _ = try? await offPool { self.shutdown() }
    }
}

extension KuraConfiguration {
    /// What the SDK and app tests' nodes use: cheap password hashing, no rate limits, four worker threads, errors
    /// only in the log.
    public mutating func useSDKTestSettings() {
        http.workerThreads = 4
        logLevel = .error
        auth = .lowCostForTesting
        auth.rateLimits.enabled = false
    }
}
