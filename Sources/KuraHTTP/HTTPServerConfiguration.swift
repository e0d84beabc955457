/// Everything the HTTP engine can be told; every limit here is documented in docs/configuration.md.
public struct HTTPServerConfiguration: Sendable {
    public var host: String = "127.0.0.1"
    /// 0 picks a free port (tests); read the bound port from `HTTPServer.port`.
    public var port: Int = 8090
    /// Event loops, one thread each; default one per core.
    public var eventLoops: Int = System.coreCount
    /// Worker pool threads for blocking work.
    public var workerThreads: Int = max(4, System.coreCount * 2)
    /// Jobs that may wait or run on the worker pool at once before new ones get 503.
    public var workerQueueLimit: Int = 4096
    public var limits = RequestParser.Limits()
    /// A request must arrive whole (headers and body) this long after its first byte, or 408 and close.
    public var requestTimeoutMs: UInt64 = 30_000
    /// A keep-alive connection with nothing in flight is closed after this long.
    public var idleTimeoutMs: UInt64 = 60_000
    /// Connections open at once across all loops; more are answered 503 and closed.
    public var maxConnections: Int = 10_000
    /// Pipelined requests a connection may have in flight before the server stops reading from it (behind an open
    /// stream, which keeps reading to see its client go away, before it closes the connection).
    public var maxPipelinedRequests: Int = 64
    /// Bytes queued for a slow reader before the server stops reading its next requests.
    public var maxPendingWriteBytes: Int = 1 << 20
    /// On shutdown, in-flight requests get this long to finish before their connections are closed.
    public var shutdownGraceMs: UInt64 = 10_000
    /// TCP listen backlog.
    /// Unexpected errors' details in their 500 answers, not only in the log (`kura serve --dev`; never in
    /// production, where they could disclose internals).
    public var verboseErrors = false
    public var backlog: Int32 = 1024
    /// Which other origins' pages may call the server; applied to every response (docs/configuration.md, `cors.*`).
    public var cors = CORSPolicy()
    /// Reverse proxies whose forwarding header names the client (`http.trustedProxies`); none by default.
    public var trustedProxies = TrustedProxies()
    /// Counts requests by route and status code with latency histograms, per event loop (`metrics.enabled`).
    public var metrics = true
    /// How much request history each loop keeps for `HTTPServer.trafficHistory()`, in intervals of
    /// `TrafficHistory.intervalSeconds` (`metrics.historySeconds`); with `metrics` only.
    public var metricsHistoryIntervals = 90

    public init() {}
}

/// Facts about the machine.
public enum System {
    /// Online processor count.
    public static var coreCount: Int {
        let n = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return n > 0 ? n : 1
    }
}

#if canImport(Glibc)
    import Glibc
#endif
