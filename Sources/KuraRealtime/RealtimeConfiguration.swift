import KuraCore

/// Limits and timings of realtime listeners (`realtime.*` in docs/configuration.md).
public struct RealtimeConfiguration: Sendable {
    /// A comment line (carrying the stream position) is sent this often so proxies keep the stream open and
    /// clients notice a dead one.
    public var heartbeatSeconds: Double = 15
    /// Bytes a connection may have waiting to be sent; a client further behind is sent `event: overflow` and
    /// disconnected (it resumes with `Last-Event-ID`). One event larger than this still goes through on its own.
    public var maxQueuedBytes: Int = 4 << 20
    /// Listeners (targets) one stream may carry.
    public var maxTargetsPerConnection: Int = 100
    /// Open listen streams at once; more are answered 503.
    public var maxConnections: Int = 10_000
    /// How often every stream's ID token is checked again for revocation (sign-out, disabled account). Expiry is
    /// checked separately, at the second.
    public var authCheckSeconds: Double = 60
    /// How often the change log is read when no local commit wakes the reader (writes by other processes).
    public var pollMilliseconds: Int = 250
    /// A resume that would replay more than this many changes to one listener sends `reset` and a snapshot
    /// instead.
    public var maxReplayChanges: Int = 10_000
    /// The wall clock, in seconds since the Unix epoch, against which streams' ID-token expiry (`exp`) is checked.
    /// Only dates are read from it; heartbeats and re-checks run on `MonotonicClock`. Injectable for tests.
    public var wallClock: @Sendable () -> Double = { Double(WallClock.nowMicros()) / 1_000_000 }

    public init() {}
}
