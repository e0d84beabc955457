import KuraCore
import KuraModel
import KuraStore

/// The document database with its commits timed: each commit's latency, from the call to the durable result (or
/// the error), goes into `latency`, and failed commits are counted (`/metrics`).
final class CommitTimingStore: DocumentStoreDecorator {
    let base: any DocumentStore
    let latency: LatencyHistogram
    let failures: MetricCells

    init(base: any DocumentStore, latency: LatencyHistogram, failures: MetricCells) {
        self.base = base
        self.latency = latency
        self.failures = failures
    }

    func commit(_ writes: [Write]) throws -> [WriteResult] {
        let started = MonotonicClock.nanoseconds()
        do {
            let results = try base.commit(writes)
            latency.observe(nanos: MonotonicClock.nanoseconds() &- started)
            return results
        } catch {
            latency.observe(nanos: MonotonicClock.nanoseconds() &- started)
            failures.add(0)
            throw error
        }
    }

    func commit(_ writes: [Write], completion: @escaping @Sendable (Result<[WriteResult], any Error>) -> Void) {
        let started = MonotonicClock.nanoseconds()
        let latency = self.latency
        let failures = self.failures
        base.commit(writes) { result in
            latency.observe(nanos: MonotonicClock.nanoseconds() &- started)
            if case .failure = result { failures.add(0) }
            completion(result)
        }
    }
}
