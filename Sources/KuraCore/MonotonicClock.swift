#if canImport(Glibc)
    import Glibc
#endif

/// Time that only moves forward: `CLOCK_MONOTONIC`, unaffected by the wall clock being set or slewed by NTP.
/// Every duration, deadline, heartbeat, timeout, rate-limit window and retry delay in Kura is measured with it.
/// The wall clock (`WallClock.nowMicros()`) is only for what means a date: token `exp`/`iat`, document times,
/// log lines, HTTP dates, and times stored on disk that must survive a restart.
///
/// The values count from an arbitrary point (the machine's boot); only differences between them mean anything.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point.
    @inline(__always)
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Milliseconds since the same point as `nanoseconds()`.
    @inline(__always)
    public static func milliseconds() -> UInt64 { nanoseconds() / 1_000_000 }

    /// Seconds since the same point as `nanoseconds()`, for timers that compare against `Double` intervals.
    @inline(__always)
    public static func seconds() -> Double { Double(nanoseconds()) / 1_000_000_000 }
}
