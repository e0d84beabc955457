import CKuraWebSDK
import KuraCore
import KuraHTTP
import KuraHosting
import KuraModel

/// `GET /_/`: the admin console (web/console/), compiled into the binary like the browser SDK and served like
/// hosted files (ETag, gzip, `no-cache`). The files are public (they hold no data); everything the console shows
/// comes from the admin API, which asks for the admin key or an `admin` claim on every call.
enum ConsoleRoutes {
    /// The embedded files by name, prepared (and compressed) once.
    static let files = EmbeddedFiles.load(kura_console_files()!)

    static func register(on router: Router<KuraContext>) {
        let files = Self.files
        router.get("/_") { _, _ in
            Response(status: 308, headers: ["Location": "/_/"])
        }
        router.get("/_/") { request, _ in
            guard let page = files["index.html"] else { throw APIError.notFound("this build has no console") }
            return Self.guarded(page.response(to: request))
        }
        router.get("/_/:file") { request, _ in
            let name = try request.parameter("file")
            guard let file = files[name] else { throw APIError.notFound("the console has no file \(name)") }
            return Self.guarded(file.response(to: request))
        }
    }

    /// The console handles the admin key: no framing by other sites, no scripts but its own and `/sdk/`, and no
    /// referrer leaving it.
    private static func guarded(_ response: Response) -> Response {
        var response = response
        response.headers.set(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'; base-uri 'none'")
        response.headers.set("Referrer-Policy", "no-referrer")
        return response
    }
}
