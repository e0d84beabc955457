import KuraCore

/// What the router matched for the request being answered, noted for the request metrics: the index of the route
/// in `Router.routes`, or one of the `RouteMatch` kinds below. One per event loop, read and written on that loop's
/// thread only (the router writes it while the connection waits for `respond` to return).
public final class MatchedRoute: @unchecked Sendable {
    // `@unchecked`: read and written on its loop's thread only (one per loop).
    public var value: Int32 = RouteMatch.unmatched
    public init() {}
}

/// The kinds of answer that no registered route gives, as `MatchedRoute` values.
public enum RouteMatch {
    /// No route for the path (404), or not for the method (405), or an undecodable path segment (400).
    public static let unmatched: Int32 = -1
    /// The router's fallback answered (static hosting).
    public static let fallback: Int32 = -2
    /// A CORS preflight, answered by the engine.
    public static let preflight: Int32 = -3
    /// The engine refused the request before any routing (malformed, too large, too many connections).
    public static let rejected: Int32 = -4
}

/// Request counts by route and status code, and latency histograms by route, of one event loop. Only that loop
/// writes them (relaxed loads and stores: no locked instruction, no shared cache line); `/metrics` reads every
/// loop's at any time (`HTTPServer.requestMetrics()`).
///
/// Labels are bounded whatever clients send: a route is a registered template (`/api/docs/*path`), never a raw
/// path; answers no route gave count under one of four names (`RouteMatch`) with the method, unknown methods as
/// `OTHER`; status codes outside `trackedCodes` count as their class (`5xx`).
final class RequestMetrics: Sendable {
    /// Status codes counted under their own label; any other counts as its class.
    static let trackedCodes = [
        100, 101, 200, 201, 202, 204, 206, 301, 302, 303, 304, 307, 308, 400, 401, 403, 404, 405, 406, 408, 409,
        410, 411, 412, 413, 414, 415, 416, 417, 422, 426, 428, 429, 431, 500, 501, 502, 503, 504, 505,
    ]
    /// Columns per route: the tracked codes, then one per class 1xx–5xx (and one for anything else).
    static let codeColumns = trackedCodes.count + 6
    /// Code → column, for 0..<600.
    private static let codeColumn: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 600)
        for code in 0..<600 {
            let klass = code / 100
            table[code] = UInt8(trackedCodes.count + ((1...5).contains(klass) ? klass - 1 : 5))
        }
        for (index, code) in trackedCodes.enumerated() { table[code] = UInt8(index) }
        return table
    }()
    static let bounds = LatencyHistogram.defaultBounds
    private static let boundNanos = bounds.map { UInt64($0 * 1e9) }
    /// Cells per slot: code columns, then one per bucket (incl. `+Inf`), then the latency sum in nanoseconds.
    static let stride = codeColumns + bounds.count + 2
    /// Methods the unrouted answers are told apart by (the last is every other method).
    static let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "OTHER"]
    static let unroutedKinds = ["(unmatched)", "(static)", "(preflight)", "(rejected)"]

    /// Registered routes; slots past them are the unrouted kinds × methods.
    let routeCount: Int
    let slotCount: Int
    let cells: MetricCells
    /// The same answers by interval of time, for the console's traffic chart.
    let history: TrafficHistory

    init(routeCount: Int, historyIntervals: Int = 90) {
        self.routeCount = routeCount
        history = TrafficHistory(intervals: historyIntervals)
        slotCount = routeCount + Self.unroutedKinds.count * Self.methods.count
        cells = MetricCells(count: slotCount * Self.stride)
    }

    /// The slot of an answer: the matched route's own, or its kind's for its method.
    func slot(route: Int32, method: HTTPMethod) -> Int {
        if route >= 0 && Int(route) < routeCount { return Int(route) }
        let kind = route < 0 && route >= RouteMatch.rejected ? Int(-route - 1) : 0
        let methodIndex: Int
        switch method {
        case .GET: methodIndex = 0
        case .HEAD: methodIndex = 1
        case .POST: methodIndex = 2
        case .PUT: methodIndex = 3
        case .PATCH: methodIndex = 4
        case .DELETE: methodIndex = 5
        case .OPTIONS: methodIndex = 6
        case .other: methodIndex = 7
        }
        return routeCount + kind * Self.methods.count + methodIndex
    }

    /// Counts one answer with `status` that took `nanos`, ending at `now` (`MonotonicClock`). Loop thread only.
    @inline(__always)
    func record(route: Int32, method: HTTPMethod, status: Int, nanos: UInt64, now: UInt64) {
        let base = slot(route: route, method: method) * Self.stride
        let column = status >= 0 && status < 600 ? Int(Self.codeColumn[status]) : Self.codeColumns - 1
        let bucket = LatencyHistogram.bucket(nanos, in: Self.boundNanos)
        cells.bump(base + column)
        cells.bump(base + Self.codeColumns + bucket)
        history.record(bucket: bucket, serverError: status >= 500, now: now)
        cells.bump(base + Self.codeColumns + Self.bounds.count + 1, by: nanos)
    }

    /// The label of code column `column`.
    static func codeLabel(_ column: Int) -> String {
        if column < trackedCodes.count { return String(trackedCodes[column]) }
        let klass = column - trackedCodes.count + 1
        return klass <= 5 ? "\(klass)xx" : "other"
    }
}

/// One route's requests over every event loop, as `/metrics` shows them.
public struct RouteRequestSample: Sendable {
    /// The method the route was registered for (for unrouted answers, the request's, or `OTHER`).
    public let method: String
    /// The registered template, or `(unmatched)`, `(static)`, `(preflight)`, `(rejected)`.
    public let route: String
    /// Requests by status code label (`200`, `404`, or a class such as `5xx` for codes not tracked one by one).
    public let codes: [(code: String, count: UInt64)]
    /// Cumulative counts, one per bound of `bounds`, then `+Inf` (the count).
    public let cumulative: [UInt64]
    public let sumSeconds: Double
    /// The histogram's upper bounds in seconds.
    public static var bounds: [Double] { RequestMetrics.bounds }
}

extension RequestMetrics {
    /// The samples of every slot that has answered at least once, summed over `loops`. Any thread.
    static func samples(
        _ loops: [RequestMetrics], labels: [(method: String, route: String)]
    ) -> [RouteRequestSample] {
        guard let first = loops.first else { return [] }
        var samples: [RouteRequestSample] = []
        for slot in 0..<first.slotCount {
            let base = slot * stride
            var values = [UInt64](repeating: 0, count: stride)
            for loop in loops {
                for index in 0..<stride { values[index] &+= loop.cells.load(base + index) }
            }
            var codes: [(String, UInt64)] = []
            for column in 0..<codeColumns where values[column] > 0 { codes.append((codeLabel(column), values[column])) }
            guard !codes.isEmpty else { continue }
            var running: UInt64 = 0
            var cumulative: [UInt64] = []
            for bucket in 0...bounds.count {
                running &+= values[codeColumns + bucket]
                cumulative.append(running)
            }
            let (method, route): (String, String)
            if slot < first.routeCount {
                (method, route) = labels[slot]
            } else {
                let offset = slot - first.routeCount
                (method, route) = (methods[offset % methods.count], unroutedKinds[offset / methods.count])
            }
            samples.append(
                RouteRequestSample(
                    method: method, route: route, codes: codes, cumulative: cumulative,
                    sumSeconds: Double(values[stride - 1]) / 1e9))
        }
        return samples
    }
}
