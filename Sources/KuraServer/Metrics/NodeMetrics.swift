import Foundation
import KuraAuth
import KuraCore
import KuraHTTP
import KuraMail
import KuraRealtime
import KuraStore
import Synchronization

/// Everything `GET /metrics` reports about this node, gathered when it is scraped: the HTTP engine's per-loop
/// request counters, the commit histogram, the auth and mail counters (all kept without a lock as they happen),
/// and gauges read at scrape time (connections, listen streams, the change log, store size, memory, descriptors).
/// docs/metrics.md lists every metric.
final class NodeMetrics: Sendable {
    /// `metrics.node`: the `kura_node` label; default `<hostname>:<port>`.
    let configuredNode: String?
    let engineName: String
    let commitLatency = LatencyHistogram()
    /// One cell: commits that failed.
    let commitFailures = MetricCells(count: 1)
    /// Set once the HTTP server exists (it is made after the routes).
    private let server = Mutex<HTTPServer?>(nil)
    private let sources: Mutex<Sources?> = Mutex(nil)

    /// What the gauges are read from.
    struct Sources: Sendable {
        let store: any DocumentStore
        let realtime: ListenerRegistry
        let auth: AuthService
        let mailer: Mailer
        /// The bytes the engine's databases take.
        let storeSize: @Sendable () throws -> Int64
    }

    init(node: String?, engineName: String) {
        configuredNode = node.flatMap { $0.isEmpty ? nil : $0 }
        self.engineName = engineName
    }

    func attach(_ http: HTTPServer, _ sources: Sources) {
        server.withLock { $0 = http }
        self.sources.withLock { $0 = sources }
    }

    /// The `kura_node` label: `metrics.node`, else `<hostname>:<port>` with the port bound.
    func nodeName() -> String {
        if let configuredNode { return configuredNode }
        let port = server.withLock { $0?.port } ?? 0
        return "\(ProcessInfo.processInfo.hostName):\(port)"
    }

    /// The exposition text. Blocking (the store's size and change log): run it on the worker pool.
    func render() -> String {
        var out = MetricsText(node: nodeName())
        out.family("kura_build_info", .gauge, "Always 1; the version and engine are labels.")
        out.sample("kura_build_info", [("version", KuraNode.version), ("engine", engineName)], 1.0)
        out.single(
            "kura_process_start_time_seconds", .gauge, "When the process started, in seconds since the Unix epoch.",
            ProcessStats.startTime)
        if let rss = ProcessStats.residentBytes() {
            out.single("kura_process_resident_memory_bytes", .gauge, "Resident memory of the process.", Double(rss))
        }
        if let fds = ProcessStats.openDescriptors() {
            out.single("kura_process_open_fds", .gauge, "Open file descriptors.", Double(fds))
        }
        if let max = ProcessStats.maxDescriptors() {
            out.single("kura_process_max_fds", .gauge, "The limit on open file descriptors.", Double(max))
        }
        if let http = server.withLock({ $0 }) { renderHTTP(http, into: &out) }
        renderStore(into: &out)
        if let sources = sources.withLock({ $0 }) { renderSources(sources, into: &out) }
        return out.text
    }

    private func renderHTTP(_ http: HTTPServer, into out: inout MetricsText) {
        let samples = http.requestMetrics()
        out.family(
            "kura_http_requests_total", .counter,
            "HTTP requests answered, by method, route template and status code.")
        for sample in samples {
            for (code, count) in sample.codes {
                out.sample(
                    "kura_http_requests_total", [("method", sample.method), ("route", sample.route), ("code", code)],
                    count)
            }
        }
        out.family(
            "kura_http_request_duration_seconds", .histogram,
            "Time from a request's arrival to its response's head, by method and route template.")
        for sample in samples {
            out.histogram(
                "kura_http_request_duration_seconds", [("method", sample.method), ("route", sample.route)],
                bounds: RouteRequestSample.bounds, cumulative: sample.cumulative, sum: sample.sumSeconds)
        }
        out.single("kura_http_open_connections", .gauge, "Open HTTP connections.", Double(http.connectionCount))
        out.single(
            "kura_http_max_connections", .gauge, "The limit on open HTTP connections (http.maxConnections).",
            Double(http.configuration.maxConnections))
        out.single(
            "kura_worker_pool_queued", .gauge, "Jobs waiting or running on the worker pool.",
            Double(http.workers.pending))
        out.single(
            "kura_worker_pool_queue_limit", .gauge,
            "Jobs the worker pool takes before answering 503 (http.workerQueueLimit).",
            Double(http.workers.maxQueued))
        out.single("kura_worker_pool_threads", .gauge, "Worker pool threads.", Double(http.workers.threads))
    }

    private func renderStore(into out: inout MetricsText) {
        let (cumulative, sum) = commitLatency.snapshot()
        out.family(
            "kura_store_commit_duration_seconds", .histogram,
            "Time a commit (a batch of writes) took, from the call to its durable result or error.")
        out.histogram(
            "kura_store_commit_duration_seconds", [], bounds: commitLatency.bounds, cumulative: cumulative, sum: sum)
        out.single(
            "kura_store_commit_failures_total", .counter, "Commits that ended in an error.",
            Double(commitFailures.load(0)))
    }

    private func renderSources(_ sources: Sources, into out: inout MetricsText) {
        if let latest = try? sources.store.latestSequence() {
            out.single(
                "kura_change_log_sequence", .gauge, "The change log's latest sequence number (its position).",
                Double(latest))
        }
        if let oldest = try? sources.store.oldestRetainedSequence() {
            out.single(
                "kura_change_log_oldest_sequence", .gauge, "The oldest sequence number the change log still holds.",
                Double(oldest))
        }
        if let bytes = try? sources.storeSize() {
            out.single(
                "kura_store_size_bytes", .gauge,
                "Bytes of the engine's databases: SQLite's files, or PostgreSQL's pg_database_size.", Double(bytes))
        }
        out.single(
            "kura_realtime_streams", .gauge, "Open listen streams (/api/listen).",
            Double(sources.realtime.connectionCount))
        out.single(
            "kura_realtime_targets", .gauge, "Listen targets (queries and documents) the open streams carry.",
            Double(sources.realtime.targetCount))
        let auth = sources.auth.outcomes
        out.family(
            "kura_auth_sign_ins_total", .counter, "Sign-ins with email and password, by outcome (success, failure).")
        out.sample("kura_auth_sign_ins_total", [("outcome", "success")], auth.signIns.load(ordering: .relaxed))
        out.sample("kura_auth_sign_ins_total", [("outcome", "failure")], auth.signInFailures.load(ordering: .relaxed))
        out.single(
            "kura_auth_rate_limited_total", .counter,
            "Auth requests refused with 429 TOO_MANY_ATTEMPTS_TRY_LATER.",
            Double(auth.rateLimited.load(ordering: .relaxed)))
        let mail = sources.mailer.counts
        out.family(
            "kura_mail_total", .counter,
            "Mails by what became of them: queued, held (no relay), sent, retried (an attempt failed), failed.")
        out.sample("kura_mail_total", [("state", "queued")], mail.queued.load(ordering: .relaxed))
        out.sample("kura_mail_total", [("state", "held")], mail.held.load(ordering: .relaxed))
        out.sample("kura_mail_total", [("state", "sent")], mail.sent.load(ordering: .relaxed))
        out.sample("kura_mail_total", [("state", "retried")], mail.retried.load(ordering: .relaxed))
        out.sample("kura_mail_total", [("state", "failed")], mail.failed.load(ordering: .relaxed))
    }
}
