import Synchronization

/// A fixed number of 64-bit counters that any thread may read at any time without a lock (each is an `Atomic`).
/// Cells written by one thread only (an event loop's request counters) use `bump`, a relaxed load and store
/// (plain moves, no locked instruction); cells several threads write use `add`, an atomic read-modify-write.
public final class MetricCells: Sendable {
    public let count: Int
    private nonisolated(unsafe) let cells: UnsafeMutablePointer<Atomic<UInt64>>

    public init(count: Int) {
        self.count = max(0, count)
        cells = .allocate(capacity: max(1, count))
        for index in 0..<max(1, count) { (cells + index).initialize(to: Atomic(0)) }
    }

    deinit {
        cells.deinitialize(count: max(1, count))
        cells.deallocate()
    }

    /// Adds `amount` to cell `index`; only for a cell that a single thread writes.
    @inline(__always)
    public func bump(_ index: Int, by amount: UInt64 = 1) {
        let cell = cells + index
        cell.pointee.store(cell.pointee.load(ordering: .relaxed) &+ amount, ordering: .relaxed)
    }

    /// Sets cell `index` to `value`; only for a cell that a single thread writes.
    @inline(__always)
    public func store(_ index: Int, _ value: UInt64) {
        (cells + index).pointee.store(value, ordering: .relaxed)
    }

    /// Adds `amount` to cell `index`, from any thread.
    @inline(__always)
    public func add(_ index: Int, _ amount: UInt64 = 1) {
        (cells + index).pointee.wrappingAdd(amount, ordering: .relaxed)
    }

    /// The value of cell `index` now.
    @inline(__always)
    public func load(_ index: Int) -> UInt64 { (cells + index).pointee.load(ordering: .relaxed) }
}

/// A latency histogram with fixed bucket bounds, whose counts any thread may add to and read without a lock
/// (Prometheus' histogram: per-bucket counts, the sum and the count).
public final class LatencyHistogram: Sendable {
    /// Upper bounds in seconds, ascending; an observation above the last one counts in `+Inf` only.
    public let bounds: [Double]
    private let boundNanos: [UInt64]
    /// Cells: one per bound (observations at most that bound and above the one before), then `+Inf`'s own, then
    /// the sum in nanoseconds.
    private let cells: MetricCells

    public init(bounds: [Double] = LatencyHistogram.defaultBounds) {
        self.bounds = bounds
        boundNanos = bounds.map { UInt64($0 * 1e9) }
        cells = MetricCells(count: bounds.count + 2)
    }

    /// 0.5 ms to 10 s.
    public static let defaultBounds: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    /// The bucket (index into `bounds`, or `bounds.count` for `+Inf`) of a duration of `nanos`.
    @inline(__always)
    public static func bucket(_ nanos: UInt64, in boundNanos: [UInt64]) -> Int {
        var index = 0
        while index < boundNanos.count && nanos > boundNanos[index] { index += 1 }
        return index
    }

    /// Records one observation of `nanos` nanoseconds, from any thread.
    public func observe(nanos: UInt64) {
        cells.add(Self.bucket(nanos, in: boundNanos))
        cells.add(bounds.count + 1, nanos)
    }

    /// The cumulative counts (one per bound, then `+Inf`, which is the count) and the sum in seconds.
    public func snapshot() -> (cumulative: [UInt64], sumSeconds: Double) {
        var running: UInt64 = 0
        var cumulative: [UInt64] = []
        for index in 0...bounds.count {
            running &+= cells.load(index)
            cumulative.append(running)
        }
        return (cumulative, Double(cells.load(bounds.count + 1)) / 1e9)
    }
}
