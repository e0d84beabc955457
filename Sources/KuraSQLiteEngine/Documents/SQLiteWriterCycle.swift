import Foundation

/// Where one cycle of the writer went (wait for the checkpointer, the jobs' work, COMMIT with its WAL write and
/// fsync) and how long its oldest job had queued, so that a slow write in the log says why it was slow.
/// Used on the writer thread only.
struct SQLiteWriterCycle: CustomStringConvertible {
    /// A cycle whose oldest job waited this long in all (queue plus cycle) is reported.
    static let slowSeconds = 0.5

    private(set) var jobs = 0
    private(set) var backgroundJobs = 0
    private var oldestQueued: UInt64 = 0
    private var started: UInt64 = 0
    private var startedCPU: UInt64 = 0
    private var checkpointWaitEnded: UInt64 = 0
    private var workEnded: UInt64 = 0
    private var ended: UInt64 = 0
    private var cpu: UInt64 = 0

    /// Starts timing a cycle of `jobs` jobs, the oldest queued at `oldestQueued` (uptime nanoseconds).
    init(jobs: Int = 0, backgroundJobs: Int = 0, oldestQueued: UInt64 = 0) {
        self.jobs = jobs
        self.backgroundJobs = backgroundJobs
        self.oldestQueued = oldestQueued
        started = Self.now()
        startedCPU = Self.threadCPU()
        checkpointWaitEnded = started
        workEnded = started
    }

    mutating func checkpointWaitDone() { checkpointWaitEnded = Self.now() }
    mutating func workDone() { workEnded = Self.now() }
    mutating func finish() {
        ended = Self.now()
        cpu = Self.threadCPU() - startedCPU
        if workEnded < checkpointWaitEnded { workEnded = ended }
    }

    /// Seconds from the oldest job's submission to the end of the cycle.
    var longestWait: Double { Double(ended &- oldestQueued) / 1e9 }

    var description: String {
        func s(_ nanos: UInt64) -> String { String(format: "%.3f s", Double(nanos) / 1e9) }
        return "store: slow write: \(jobs) job(s)\(backgroundJobs > 0 ? " (\(backgroundJobs) index build step)" : ""),"
            + " oldest queued \(s(started &- oldestQueued)) before the cycle; cycle \(s(ended &- started)):"
            + " waiting for the checkpointer \(s(checkpointWaitEnded &- started)),"
            + " work \(s(workEnded &- checkpointWaitEnded)), COMMIT \(s(ended &- workEnded)),"
            + " writer CPU \(s(cpu))"
    }

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    private static func threadCPU() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
