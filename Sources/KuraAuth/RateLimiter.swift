import KuraCore
import KuraModel
import Synchronization

/// A token-bucket limit: up to `burst` attempts at once, then one more every `refillInterval` seconds.
public struct RateLimit: Sendable, Equatable {
    /// Bucket size.
    public var burst: Int
    /// Seconds to regain one attempt.
    public var refillInterval: Double

    public init(burst: Int, refillInterval: Double) {
        self.burst = burst
        self.refillInterval = refillInterval
    }
}

/// In-memory token buckets keyed by strings (`"signin:ip:203.0.113.7"`, `"signin:email:ann@x.io"`, …), thread-safe.
/// Memory is bounded: past `maxBuckets`, buckets that have refilled completely (idle ones, indistinguishable from
/// new) are dropped, then the least recently used.
public final class RateLimiter: Sendable {
    /// The limit every key gets.
    public let limit: RateLimit
    /// `false` makes `check(_:)` a no-op.
    public let enabled: Bool
    private let maxBuckets: Int
    /// Buckets refill on `clock.elapsed` (monotonic), never on the wall clock.
    private let clock: AuthClock

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }
    private let buckets = Mutex<[String: Bucket]>([:])

    public init(limit: RateLimit, enabled: Bool = true, maxBuckets: Int = 100_000, clock: AuthClock = .system) {
        self.limit = limit
        self.enabled = enabled
        self.maxBuckets = max(1, maxBuckets)
        self.clock = clock
    }

    /// Takes one attempt from `key`'s bucket, or throws 429 `TOO_MANY_ATTEMPTS_TRY_LATER` with `Retry-After` set to
    /// the whole seconds until the next attempt is available.
    public func check(_ key: String) throws {
        guard enabled else { return }
        let now = clock.elapsed()
        let retryAfter: Double? = buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: Double(limit.burst), updated: now)
            bucket.tokens = min(
                Double(limit.burst), bucket.tokens + max(0, now - bucket.updated) / limit.refillInterval)
            bucket.updated = now
            defer {
                if buckets[key] == nil && buckets.count >= maxBuckets { evict(&buckets, now: now) }
                buckets[key] = bucket
            }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return (1 - bucket.tokens) * limit.refillInterval
        }
        if let retryAfter { throw APIError.tooManyAttempts(retryAfter: max(1, Int(retryAfter.rounded(.up)))) }
    }

    /// Seconds until `key`'s bucket has an attempt again, or `nil` when it has one now; takes nothing.
    public func retryAfter(_ key: String) -> Double? {
        guard enabled else { return nil }
        let now = clock.elapsed()
        let tokens = buckets.withLock { $0[key].map { refilled($0, now: now) } } ?? Double(limit.burst)
        return tokens >= 1 ? nil : (1 - tokens) * limit.refillInterval
    }

    /// Whether `key`'s bucket is short of full: something was charged to it within the last
    /// `burst × refillInterval` seconds.
    public func isCharged(_ key: String) -> Bool {
        guard enabled else { return false }
        let now = clock.elapsed()
        return buckets.withLock { $0[key].map { refilled($0, now: now) < Double(limit.burst) } } ?? false
    }

    /// Takes `count` attempts from `key`'s bucket (down to empty), without refusing anything: for counting what
    /// already happened, such as a failed sign-in.
    public func charge(_ key: String, count: Int = 1) {
        guard enabled else { return }
        let now = clock.elapsed()
        buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: Double(limit.burst), updated: now)
            bucket.tokens = max(0, refilled(bucket, now: now) - Double(count))
            bucket.updated = now
            if buckets[key] == nil && buckets.count >= maxBuckets { evict(&buckets, now: now) }
            buckets[key] = bucket
        }
    }

    private func refilled(_ bucket: Bucket, now: Double) -> Double {
        min(Double(limit.burst), bucket.tokens + max(0, now - bucket.updated) / limit.refillInterval)
    }

    /// Buckets currently held (for tests and metrics).
    public var bucketCount: Int { buckets.withLock { $0.count } }

    private func evict(_ buckets: inout [String: Bucket], now: Double) {
        let full = Double(limit.burst)
        buckets = buckets.filter { $0.value.tokens + (now - $0.value.updated) / limit.refillInterval < full }
        if buckets.count >= maxBuckets {
            // Everyone is active: drop the least recently used half rather than refuse to track new keys.
            let keep = buckets.sorted { $0.value.updated > $1.value.updated }.prefix(maxBuckets / 2)
            buckets = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
        }
    }
}
