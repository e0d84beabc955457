import KuraCore
import KuraHTTP
import KuraModel

/// `GET /api/health` and, when no hosting root serves `/`, the `GET /` landing page.
enum SystemRoutes {
    static func register(on router: Router<KuraContext>, landingPage: Bool) {
        // The health body never changes while the process runs: encode it once.
        let health = Response.json(Array(#"{"status":"ok","version":"\#(KuraNode.version)"}"#.utf8))
        router.get("/api/health") { _, _ in health }

        guard landingPage else { return }
        let home = Response.html(homePage)
        router.get("/") { _, _ in home }
    }

    static let homePage = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Kura \(KuraNode.version)</title>
        <style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5}
        code{background:#f3f3f3;padding:.1rem .3rem;border-radius:3px}</style></head>
        <body>
        <h1>Kura \(KuraNode.version) is running</h1>
        <p>Kura is a self-hosted backend for app developers: accounts, documents, queries and live updates
        behind one JSON API.</p>
        <ul>
        <li>Health: <a href="/api/health"><code>GET /api/health</code></a></li>
        <li>API reference: <code>docs/api.md</code> in the Kura repository</li>
        <li>Configuration: <code>docs/configuration.md</code></li>
        </ul>
        </body></html>
        """
}
