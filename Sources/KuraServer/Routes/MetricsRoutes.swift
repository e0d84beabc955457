import KuraCore
import KuraHTTP
import KuraModel

/// `GET /metrics`: the Prometheus text exposition of `NodeMetrics`, for the metrics token (`metrics.token`) or any
/// administrator (the admin key, a user with the `admin` claim: `CallerPolicy.admin`, so every other input is
/// answered as on the other admin endpoints). Registered only when `metrics.enabled` is on.
struct MetricsRoutes {
    let metrics: NodeMetrics
    let callers: CallerResolution
    /// `metrics.token`.
    let token: String?

    func register(on router: Router<KuraContext>) {
        let metrics = self.metrics
        let token = self.token
        let exposition: Router<KuraContext>.Handler = { _, context in
            context.environment.offload {
                Response(
                    status: 200, headers: ["Content-Type": MetricsText.contentType],
                    body: Array(metrics.render().utf8))
            }
        }
        let asAdmin = callers.resolving(.admin, exposition)
        router.get("/metrics") { request, context in
            // The scraper's token first: it is no ID token, and must not be verified as one.
            if let token, let presented = request.bearerToken, Self.constantTimeEqual(presented, token) {
                return try exposition(request, context)
            }
            return try asAdmin(request, context)
        }
    }

    /// Compares without stopping at the first difference, so timing does not tell how much of a guess was right.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for index in 0..<x.count { diff |= x[index] ^ y[index] }
        return diff == 0
    }
}
