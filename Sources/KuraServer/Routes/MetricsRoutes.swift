import KuraCore
import KuraHTTP
import KuraModel

/// `GET /metrics`: the Prometheus text exposition of `NodeMetrics`, for the admin key or the metrics token
/// (`metrics.token`); registered only when `metrics.enabled` is on.
struct MetricsRoutes {
    let metrics: NodeMetrics
    let adminKey: AdminKey
    /// `metrics.token`.
    let token: String?

    func register(on router: Router<KuraContext>) {
        let routes = self
        router.get("/metrics") { request, context in
            try routes.authorize(request)
            let metrics = routes.metrics
            return context.environment.offload {
                Response(
                    status: 200, headers: ["Content-Type": MetricsText.contentType],
                    body: Array(metrics.render().utf8))
            }
        }
    }

    /// 401 `UNAUTHENTICATED` without `Authorization: Bearer …`; 403 `PERMISSION_DENIED` for a token that is
    /// neither the admin key nor the metrics token.
    func authorize(_ request: Request) throws {
        guard request.headers["Authorization"] != nil else {
            throw APIError.unauthenticated("/metrics needs 'Authorization: Bearer <metrics token or admin key>'")
        }
        guard let presented = request.bearerToken, !presented.isEmpty else {
            throw APIError.unauthenticated("use 'Authorization: Bearer <metrics token or admin key>'")
        }
        if adminKey.matches(presented) { return }
        if let token, Self.constantTimeEqual(presented, token) { return }
        throw APIError.permissionDenied("the token is neither the metrics token nor the admin key")
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
