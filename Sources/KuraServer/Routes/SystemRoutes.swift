import KuraCore
import KuraHTTP
import KuraMail
import KuraModel

/// `GET /api/health` and, when no hosting root serves `/`, the `GET /` landing page.
enum SystemRoutes {
    static func register(on router: Router<KuraContext>, landingPage: Bool) {
        // The health body never changes while the process runs: encode it once.
        let health = Response.json(Array(#"{"status":"ok","version":"\#(KuraNode.version)"}"#.utf8))
        router.get("/api/health") { _, _ in health }

        guard landingPage else { return }
        let pages = Dictionary(uniqueKeysWithValues: MailLanguage.allCases.map { ($0, Response.html(homePage($0))) })
        router.get("/") { request, _ in
            pages[MailLanguage.preferred(acceptLanguage: request.headers["Accept-Language"])]!
        }
        let icon = Array(ActionPageAssets.icon.utf8)
        router.get("/favicon.ico") { _, _ in
            var response = Response(status: 200, headers: ["Content-Type": "image/svg+xml"], body: icon)
            response.headers.add("Cache-Control", "public, max-age=3600")
            return response
        }
    }

    /// The notice at `/` of a server that hosts nothing there, in the browser's language.
    static func homePage(_ language: MailLanguage) -> String {
        let ja = language == .japanese
        return """
            <!doctype html>
            <html lang="\(language.rawValue)"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Kura \(KuraNode.version)</title>
            <link rel="icon" href="/auth/favicon.svg" type="image/svg+xml">
            <link rel="stylesheet" href="/auth/action.css"></head>
            <body>
            <header class="bar"><div class="bar-inner"><span class="brand"><img src="/auth/favicon.svg" alt="" \
            width="32" height="32">Kura</span></div></header>
            <main id="main"><section class="panel" aria-labelledby="title">
            <div class="badge" aria-hidden="true">✓</div>
            <h1 id="title">\(ja ? "Kura \(KuraNode.version) が動いています" : "Kura \(KuraNode.version) is running")</h1>
            <p class="lead">\(ja
                ? "Kura はアプリ開発者のためのセルフホスト型バックエンドです。アカウント、ドキュメント、クエリ、リアルタイム更新を一つの JSON API で提供します。"
                : "Kura is a self-hosted backend for app developers: accounts, documents, queries and live updates behind one JSON API.")</p>
            <ul class="links">
            <li>\(ja ? "稼働状況" : "Health"): <a href="/api/health"><code>GET /api/health</code></a></li>
            <li>\(ja ? "API リファレンス" : "API reference"): <code>docs/api.md</code></li>
            <li>\(ja ? "設定" : "Configuration"): <code>docs/configuration.md</code></li>
            <li>\(ja ? "自分のアプリを配信するには" : "To host your own app here"): <code>kura serve --public DIR</code></li>
            </ul>
            </section></main>
            <footer class="foot"><p>Kura \(KuraNode.version)</p></footer>
            </body></html>
            """
    }
}
