import KuraCore
import KuraHTTP
import KuraHosting
import KuraModel

/// Static hosting (`hosting.root`): the router's fallback, so every path no route claims is looked up under the
/// root, except the prefixes Kura keeps for itself (docs/api.md, "Paths Kura owns"), which stay JSON 404s.
struct HostingRoutes {
    let site: StaticSite

    /// Path prefixes never served from the hosting root, whatever files it holds.
    static let ownedPrefixes = ["/api/", "/sdk/", "/auth/", "/_/"]

    func register(on router: Router<KuraContext>) {
        let site = self.site
        router.fallback = { request, context in
            let path = request.path
            if path == "/api" || path == "/sdk" || path == "/auth" || path == "/_"
                || Self.ownedPrefixes.contains(where: { path.hasPrefix($0) })
            {
                throw APIError.notFound("no route for \(request.method) \(path)")
            }
            return site.respond(to: request, environment: context.environment)
        }
    }
}
