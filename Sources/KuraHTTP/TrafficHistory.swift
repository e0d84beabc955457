import KuraCore

/// One event loop's answers by interval of time (`intervalSeconds` each) over its last `intervals` intervals: how
/// many, how many were server errors (5xx), and their latency histogram (the buckets of `/metrics`' request
/// histogram). A ring of slots, one per interval, that the loop reuses as time goes on; only the loop writes
/// (relaxed loads and stores on cells no other thread writes, as `RequestMetrics`), so an answer costs one
/// division, one load and one or two cell bumps beyond what `/metrics` already counts. `HTTPServer.trafficHistory()`
/// reads every loop's at any time.
final class TrafficHistory: Sendable {
    /// The length of one interval.
    static let intervalSeconds = 10
    static let intervalNanos = UInt64(intervalSeconds) * 1_000_000_000
    /// Cells per slot: the interval it holds + 1 (0: none yet), the 5xx answers, then one per latency bucket (the
    /// bounds of `RequestMetrics.bounds`, then `+Inf`).
    static let stride = 2 + RequestMetrics.bounds.count + 1

    let slots: Int
    let cells: MetricCells

    init(intervals: Int) {
        slots = max(1, intervals)
        cells = MetricCells(count: slots * Self.stride)
    }

    /// Counts one answer in latency bucket `bucket` (of `RequestMetrics.bounds`) that ended at `now`
    /// (`MonotonicClock`). Loop thread only.
    @inline(__always)
    func record(bucket: Int, serverError: Bool, now: UInt64) {
        let interval = now / Self.intervalNanos
        let base = Int(interval % UInt64(slots)) * Self.stride
        if cells.load(base) != interval &+ 1 {
            // The slot held an interval that has left the window (or none): start it afresh, the tag last, so that
            // a reader that saw the old tag before and after its reads knows its numbers belong to that interval.
            for index in 1..<Self.stride { cells.store(base + index, 0) }
            cells.store(base, interval &+ 1)
        }
        if serverError { cells.bump(base + 1) }
        cells.bump(base + 2 + bucket)
    }

    /// The intervals of the window that ends with the one holding `now`, from the one holding `since` at the
    /// earliest, summed over `loops`; oldest first, every interval present (with zeros when nothing was answered).
    static func snapshot(_ loops: [TrafficHistory], now: UInt64, since: UInt64) -> TrafficHistorySnapshot {
        let current = now / intervalNanos
        let slots = loops.map(\.slots).min() ?? 1
        let first = max(since / intervalNanos, current >= UInt64(slots) ? current - UInt64(slots) + 1 : 0)
        let count = Int(current - first + 1)
        let buckets = RequestMetrics.bounds.count + 1
        var errors = [UInt64](repeating: 0, count: count)
        var histograms = [[UInt64]](repeating: [UInt64](repeating: 0, count: buckets), count: count)
        for loop in loops {
            for slot in 0..<loop.slots {
                let base = slot * stride
                let tag = loop.cells.load(base)
                guard tag > first, tag - 1 <= current else { continue }
                let position = Int(tag - 1 - first)
                let slotErrors = loop.cells.load(base + 1)
                var counts = [UInt64](repeating: 0, count: buckets)
                for bucket in 0..<buckets { counts[bucket] = loop.cells.load(base + 2 + bucket) }
                // Reused for a newer interval while being read: its numbers are not this interval's.
                guard loop.cells.load(base) == tag else { continue }
                errors[position] &+= slotErrors
                for bucket in 0..<buckets { histograms[position][bucket] &+= counts[bucket] }
            }
        }
        var intervals: [TrafficInterval] = []
        for position in 0..<count {
            let start = (first + UInt64(position)) * intervalNanos
            let end = min(start + intervalNanos, now)
            let covered = end - max(start, min(since, end))
            var running: UInt64 = 0
            let cumulative = histograms[position].map { count in
                running &+= count
                return running
            }
            intervals.append(
                TrafficInterval(
                    startNanos: start, seconds: Double(covered) / 1e9, serverErrors: errors[position],
                    cumulative: cumulative))
        }
        return TrafficHistorySnapshot(
            intervalSeconds: intervalSeconds, windowIntervals: slots, nowNanos: now, intervals: intervals)
    }
}

/// `HTTPServer.trafficHistory()`: the answers of every loop per interval of time.
public struct TrafficHistorySnapshot: Sendable {
    /// The length of one interval in seconds.
    public let intervalSeconds: Int
    /// How many intervals the server keeps (`metricsHistoryIntervals`).
    public let windowIntervals: Int
    /// When the snapshot was taken (`MonotonicClock`).
    public let nowNanos: UInt64
    /// Oldest first; the last one is under way.
    public let intervals: [TrafficInterval]
    /// The histogram's upper bounds in seconds (the last bucket, `+Inf`, has none).
    public static var bounds: [Double] { RequestMetrics.bounds }
}

/// The answers of one interval of time.
public struct TrafficInterval: Sendable {
    /// Where the interval starts (`MonotonicClock`).
    public let startNanos: UInt64
    /// How much of the interval has passed while the server was up: the interval's length, except for the first
    /// (the server started in it) and the last (under way).
    public let seconds: Double
    /// Answers with a 5xx status.
    public let serverErrors: UInt64
    /// Cumulative counts, one per bound of `TrafficHistorySnapshot.bounds`, then `+Inf` (all answers).
    public let cumulative: [UInt64]

    /// Every answer of the interval.
    public var requests: UInt64 { cumulative.last ?? 0 }

    /// The latency below which a fraction `q` (0…1) of the answers fell, in seconds, interpolated linearly within
    /// the histogram bucket it lands in (as Prometheus' `histogram_quantile`); the largest bound when it lands
    /// in `+Inf`; `nil` with no answers.
    public func latency(quantile q: Double) -> Double? {
        LatencyQuantile.estimate(q, cumulative: cumulative, bounds: TrafficHistorySnapshot.bounds)
    }
}

/// A quantile estimated from a histogram's cumulative bucket counts.
public enum LatencyQuantile {
    /// `cumulative` has one count per bound of `bounds`, then the total; see `TrafficInterval.latency(quantile:)`.
    public static func estimate(_ q: Double, cumulative: [UInt64], bounds: [Double]) -> Double? {
        guard let total = cumulative.last, total > 0, !bounds.isEmpty else { return nil }
        let rank = min(max(q, 0), 1) * Double(total)
        var below: UInt64 = 0
        for (index, count) in cumulative.enumerated() {
            guard Double(count) >= rank, count > below || rank == 0 else {
                below = count
                continue
            }
            guard index < bounds.count else { return bounds[bounds.count - 1] }
            let lower = index == 0 ? 0 : bounds[index - 1]
            let inBucket = Double(count - below)
            let fraction = inBucket > 0 ? (rank - Double(below)) / inBucket : 0
            return lower + (bounds[index] - lower) * min(max(fraction, 0), 1)
        }
        return bounds[bounds.count - 1]
    }
}
