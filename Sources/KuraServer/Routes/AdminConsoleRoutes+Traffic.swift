import KuraCore
import KuraHTTP
import KuraModel

/// `GET /api/admin/traffic`: the requests this node answered per interval of time (10 s) over the last
/// `metrics.historySeconds`, with their server errors and latency percentiles, and the same for the whole window
/// (docs/api.md, "Admin"). Read from the counters `/metrics` keeps; with `metrics.enabled=false` it says so and
/// lists nothing.
extension AdminConsoleRoutes {
    /// The percentiles each interval and the summary carry, as (key, quantile).
    static let percentiles: [(String, Double)] = [("p50Ms", 0.5), ("p95Ms", 0.95), ("p99Ms", 0.99)]

    func registerTraffic(on router: Router<KuraContext>) {
        let forAdmins = callers.routes(.admin, on: router)
        let connections = self.connections
        let configuration = self.configuration
        forAdmins.get("/api/admin/traffic") { _, _ in
            // Memory only (a few thousand relaxed loads): answered on the loop.
            let history = configuration.metrics.enabled ? connections.trafficHistory() : nil
            return .json(Self.traffic(history, configuration: configuration).jsonBytes)
        }
    }

    /// The answer for `history` (`nil`: the metrics are off), its times by the wall clock now.
    static func traffic(_ history: TrafficHistorySnapshot?, configuration: KuraConfiguration) -> JSONValue {
        var answer = JSONObject([
            ("metricsEnabled", .bool(history != nil)),
            ("intervalSeconds", .int(Int64(history?.intervalSeconds ?? 10))),
            ("windowSeconds", .int(Int64(configuration.metrics.historySeconds))),
        ])
        guard let history else {
            answer["intervals"] = .array([])
            answer["summary"] = .null
            return .object(answer)
        }
        let wallNow = WallClock.nowMicros()
        var total = [UInt64](repeating: 0, count: TrafficHistorySnapshot.bounds.count + 1)
        var errors: UInt64 = 0
        var seconds = 0.0
        var intervals: [JSONValue] = []
        for interval in history.intervals {
            let start = wallNow - Int64((history.nowNanos &- interval.startNanos) / 1000)
            var entry = JSONObject([("start", .string(RFC3339.format(start)))])
            Self.describe(
                cumulative: interval.cumulative, errors: interval.serverErrors, seconds: interval.seconds,
                into: &entry)
            intervals.append(.object(entry))
            for index in total.indices { total[index] &+= interval.cumulative[index] }
            errors &+= interval.serverErrors
            seconds += interval.seconds
        }
        var summary = JSONObject()
        Self.describe(cumulative: total, errors: errors, seconds: seconds, into: &summary)
        answer["intervals"] = .array(intervals)
        answer["summary"] = .object(summary)
        return .object(answer)
    }

    /// `seconds`, `requests`, `errors`, `requestsPerSecond` and the percentiles (null with no requests).
    private static func describe(cumulative: [UInt64], errors: UInt64, seconds: Double, into entry: inout JSONObject) {
        let requests = cumulative.last ?? 0
        entry["seconds"] = .double(rounded(seconds, 3))
        entry["requests"] = .int(Int64(clamping: requests))
        entry["errors"] = .int(Int64(clamping: errors))
        entry["requestsPerSecond"] = .double(seconds > 0 ? rounded(Double(requests) / seconds, 3) : 0)
        for (key, quantile) in percentiles {
            entry[key] =
                LatencyQuantile.estimate(quantile, cumulative: cumulative, bounds: TrafficHistorySnapshot.bounds)
                .map { .double(rounded($0 * 1000, 3)) } ?? .null
        }
    }

    private static func rounded(_ value: Double, _ digits: Int) -> Double {
        let scale = Double([1, 10, 100, 1000, 10000][min(digits, 4)])
        return (value * scale).rounded() / scale
    }
}
