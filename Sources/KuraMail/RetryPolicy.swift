/// Exponential backoff with jitter between delivery attempts.
public struct RetryPolicy: Sendable, Equatable {
    /// Delay after the first failed attempt.
    public var base: Duration
    /// Upper bound of any delay.
    public var max: Duration

    public init(base: Duration, max: Duration) {
        self.base = base
        self.max = max
    }

    /// The delay after `attempt` (1-based) failed attempts: `base · 2^(attempt−1)`, capped at `max`, then scaled by
    /// `0.5 + 0.5·jitter` ("equal jitter": at least half the step, so retries spread out without collapsing to 0).
    /// `jitter` is a uniform random number in `0..<1`.
    public func delay(afterAttempt attempt: Int, jitter: Double) -> Duration {
        let baseMillis = Double(base.milliseconds)
        let maxMillis = Double(max.milliseconds)
        let exponent = Double(Swift.min(Swift.max(attempt - 1, 0), 62))
        let step = Swift.min(baseMillis * Double.pow2(exponent), maxMillis)
        let clampedJitter = Swift.min(Swift.max(jitter, 0), 1)
        return .milliseconds(Int64((step * (0.5 + 0.5 * clampedJitter)).rounded()))
    }
}

extension Double {
    fileprivate static func pow2(_ exponent: Double) -> Double {
        var result = 1.0
        for _ in 0..<Int(exponent) { result *= 2 }
        return result
    }
}
