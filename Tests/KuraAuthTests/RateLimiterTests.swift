import KuraCore
import KuraModel
import Testing

@testable import KuraAuth

@Suite struct RateLimiterTests {
    @Test func burstThenRefillWithRetryAfter() throws {
        let clock = TestClock()
        let limiter = RateLimiter(limit: RateLimit(burst: 3, refillInterval: 10), clock: clock.authClock)
        for _ in 0..<3 { try limiter.check("k") }
        let error = expectError(.tooManyAttemptsTryLater, 429) { try limiter.check("k") }
        #expect(error?.headers.first { $0.0 == "Retry-After" }?.1 == "10")
        try limiter.check("other")  // keys are independent
        clock.advance(4)
        let later = expectError(.tooManyAttemptsTryLater, 429) { try limiter.check("k") }
        #expect(later?.headers.first { $0.0 == "Retry-After" }?.1 == "6")
        clock.advance(6)
        try limiter.check("k")
        expectError(.tooManyAttemptsTryLater, 429) { try limiter.check("k") }
        clock.advance(1000)  // refills to the burst, no further
        for _ in 0..<3 { try limiter.check("k") }
        expectError(.tooManyAttemptsTryLater, 429) { try limiter.check("k") }
    }

    @Test("buckets refill with elapsed time, not with a wall clock set forward or back")
    func wallClockStepsNeitherRefillNorFreeze() throws {
        let wall = TestClock()
        let elapsed = TestClock(0)
        let clock = AuthClock(now: { wall.now }, elapsed: { elapsed.now })
        let limiter = RateLimiter(limit: RateLimit(burst: 2, refillInterval: 10), clock: clock)
        for _ in 0..<2 { try limiter.check("k") }
        wall.advance(86_400)  // the wall clock jumps a day ahead: no attempts come back
        expectError(.tooManyAttemptsTryLater, 429) { try limiter.check("k") }
        wall.advance(-2 * 86_400)  // and a day back: refill goes on as time passes
        elapsed.advance(10)
        try limiter.check("k")
        expectError(.tooManyAttemptsTryLater, 429) { try limiter.check("k") }
    }

    @Test func chargeCountsWithoutRefusingAndPeeksTakeNothing() throws {
        let clock = TestClock()
        let limiter = RateLimiter(limit: RateLimit(burst: 3, refillInterval: 10), clock: clock.authClock)
        #expect(limiter.retryAfter("k") == nil && !limiter.isCharged("k"))
        limiter.charge("k")
        #expect(limiter.isCharged("k") && limiter.retryAfter("k") == nil)
        limiter.charge("k", count: 5)  // down to empty, never below
        #expect(limiter.retryAfter("k") == 10)
        #expect(limiter.retryAfter("k") == 10)  // peeking took nothing
        clock.advance(10)
        #expect(limiter.retryAfter("k") == nil && limiter.isCharged("k"))
        clock.advance(20)  // full again: no record of the failures left
        #expect(!limiter.isCharged("k"))
    }

    @Test func signInThrottleLetsAnAddressWithACleanRecordThrough() throws {
        let f = try Fixture { $0.rateLimits.enabled = true }
        try f.signUp()
        for i in 0..<5 {
            try f.auth.checkSignInThrottle(ip: "198.51.100.\(i)", email: "ann@example.com")
            f.auth.recordFailedSignIn(ip: "198.51.100.\(i)", email: "ann@example.com")
        }
        expectError(.tooManyAttemptsTryLater, 429) {
            try f.auth.checkSignInThrottle(ip: "198.51.100.1", email: "ANN@example.com")
        }
        try f.auth.checkSignInThrottle(ip: "203.0.113.9", email: "ann@example.com")
        // A failure from the clean address on the locked account empties its bucket for every account.
        f.auth.recordFailedSignIn(ip: "203.0.113.9", email: "ann@example.com")
        expectError(.tooManyAttemptsTryLater, 429) {
            try f.auth.checkSignInThrottle(ip: "203.0.113.9", email: "bob@example.com")
        }
    }

    @Test func disabledLimiterNeverThrows() throws {
        let limiter = RateLimiter(limit: RateLimit(burst: 1, refillInterval: 60), enabled: false)
        for _ in 0..<10 { try limiter.check("k") }
    }

    @Test func bucketsAreBounded() throws {
        let clock = TestClock()
        let limiter = RateLimiter(limit: RateLimit(burst: 2, refillInterval: 1), maxBuckets: 10, clock: clock.authClock)
        for i in 0..<100 {
            try limiter.check("key-\(i)")
            clock.advance(0.1)
        }
        #expect(limiter.bucketCount <= 10)
    }

    @Test func serviceChecksIPAndAccountKeys() throws {
        let f = try Fixture()
        for _ in 0..<5 {
            try f.auth.checkRateLimit(.signIn, ip: "203.0.113.\(Int.random(in: 1...200))", email: "Ann@example.com")
        }
        // The sixth attempt against one account is refused whatever the address (per-account: 5, then 1/min).
        let error = expectError(.tooManyAttemptsTryLater, 429) {
            try f.auth.checkRateLimit(.signIn, ip: "198.51.100.1", email: "ann@EXAMPLE.com")
        }
        #expect(error?.headers.first { $0.0 == "Retry-After" }?.1 == "60")
        // Other endpoint classes have their own buckets.
        try f.auth.checkRateLimit(.passwordReset, ip: "198.51.100.1", email: "ann@example.com")
        for _ in 0..<20 { try f.auth.checkRateLimit(.signUp, ip: "192.0.2.9", email: nil) }
        expectError(.tooManyAttemptsTryLater, 429) {
            try f.auth.checkRateLimit(.signUp, ip: "192.0.2.9", email: nil)
        }
        f.clock.advance(3)
        try f.auth.checkRateLimit(.signUp, ip: "192.0.2.9", email: nil)
    }
}
