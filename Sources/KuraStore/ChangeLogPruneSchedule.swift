import KuraCore

/// When an engine's writer prunes the change log: at most once per `interval`, everything older than `retention`
/// (both in microseconds). Used by the writer thread only.
package final class ChangeLogPruneSchedule {
    /// How long entries are kept.
    package let retention: Int64
    /// The least time between two prunings.
    package let interval: Int64
    private var last: Int64 = 0

    /// A schedule whose first pruning is due at once.
    package init(retention: Int64, interval: Int64) {
        self.retention = retention
        self.interval = interval
    }

    /// The cutoff to prune entries older than when a pruning is due now (and it is then counted as done), else
    /// `nil`.
    package func dueCutoff() -> Int64? {
        let now = WallClock.nowMicros()
        guard now - last >= interval else { return nil }
        last = now
        return now - retention
    }
}
