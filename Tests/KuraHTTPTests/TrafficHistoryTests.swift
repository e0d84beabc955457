import Testing

@testable import KuraHTTP

/// The per-interval request history behind `GET /api/admin/traffic`, as a plain value: answers recorded at chosen
/// times, snapshots taken at chosen times.
@Suite struct TrafficHistoryTests {
    static let second: UInt64 = 1_000_000_000
    /// A time far from zero, at the start of an interval.
    static let base = UInt64(TrafficHistory.intervalSeconds) * second * 1000

    @Test("answers land in the interval of their time; the window keeps the last intervals, contiguous, oldest first")
    func ring() {
        let loop = TrafficHistory(intervals: 3)
        let other = TrafficHistory(intervals: 3)
        loop.record(bucket: 0, serverError: false, now: Self.base + 1)
        loop.record(bucket: 3, serverError: true, now: Self.base + 5 * Self.second)
        other.record(bucket: 1, serverError: false, now: Self.base + 9 * Self.second)
        loop.record(bucket: 2, serverError: false, now: Self.base + 25 * Self.second)
        let first = TrafficHistory.snapshot([loop, other], now: Self.base + 26 * Self.second, since: 0)
        #expect(first.intervals.map(\.requests) == [3, 0, 1])
        #expect(first.intervals.map(\.serverErrors) == [1, 0, 0])
        #expect(first.intervals.map(\.seconds) == [10, 10, 6])
        #expect(first.intervals[0].cumulative.prefix(4) == [1, 2, 2, 3])
        // Two intervals later the first two have left the window; the slot of the first is reused.
        loop.record(bucket: 0, serverError: false, now: Self.base + 31 * Self.second)
        let later = TrafficHistory.snapshot([loop, other], now: Self.base + 45 * Self.second, since: 0)
        #expect(later.intervals.map(\.requests) == [1, 1, 0])
        #expect(later.intervals.map(\.serverErrors) == [0, 0, 0])
        // Nothing before the server was made.
        let young = TrafficHistory.snapshot(
            [loop], now: Self.base + 45 * Self.second, since: Self.base + 42 * Self.second)
        #expect(young.intervals.count == 1 && young.intervals[0].seconds == 3)
    }

    @Test(
        "percentiles interpolate within the bucket they land in; +Inf gives the largest bound; none without answers",
        arguments: [
            // cumulative over bounds [1, 2, 4] then +Inf, quantile, expected
            ([10, 10, 10, 10], 0.5, 0.5), ([0, 10, 10, 10], 0.5, 1.5), ([0, 0, 4, 4], 0.75, 3.5),
            ([5, 5, 5, 10], 0.99, 4), ([0, 0, 0, 0], 0.5, nil), ([2, 4, 4, 4], 1.0, 2),
        ] as [([UInt64], Double, Double?)])
    func quantiles(cumulative: [UInt64], quantile: Double, expected: Double?) {
        #expect(LatencyQuantile.estimate(quantile, cumulative: cumulative, bounds: [1, 2, 4]) == expected)
    }
}
