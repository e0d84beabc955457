/// Content types of the files Kura serves, by file name.
public enum MediaType {
    /// The `Content-Type` for `name` (its extension, case-insensitive); `application/octet-stream` when unknown.
    public static func forFile(named name: String) -> String {
        let lower = name.lowercased()
        if lower.hasSuffix(".d.ts") { return "application/typescript; charset=utf-8" }
        guard let dot = lower.lastIndex(of: ".") else { return "application/octet-stream" }
        return byExtension[String(lower[lower.index(after: dot)...])] ?? "application/octet-stream"
    }

    /// Whether gzip pays for this type: text, scripts, JSON, SVG, XML and WebAssembly (images, fonts in WOFF2 and
    /// media are compressed already).
    public static func isCompressible(_ contentType: String) -> Bool {
        contentType.hasPrefix("text/") || contentType.hasPrefix("application/javascript")
            || contentType.hasPrefix("application/json") || contentType.hasPrefix("application/manifest+json")
            || contentType.hasPrefix("application/typescript") || contentType.hasPrefix("application/xml")
            || contentType.hasPrefix("image/svg+xml") || contentType == "application/wasm"
            || contentType == "font/ttf" || contentType == "font/otf" || contentType == "image/x-icon"
    }

    /// Whether this is an HTML page (which always revalidates: it names the other files).
    public static func isHTML(_ contentType: String) -> Bool { contentType.hasPrefix("text/html") }

    private static let byExtension: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "json": "application/json", "map": "application/json",
        "webmanifest": "application/manifest+json",
        "txt": "text/plain; charset=utf-8", "md": "text/markdown; charset=utf-8", "csv": "text/csv; charset=utf-8",
        "xml": "application/xml", "svg": "image/svg+xml",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "avif": "image/avif", "ico": "image/x-icon", "bmp": "image/bmp",
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
        "wasm": "application/wasm", "pdf": "application/pdf", "zip": "application/zip",
        "mp4": "video/mp4", "webm": "video/webm", "mp3": "audio/mpeg", "ogg": "audio/ogg", "wav": "audio/wav",
        "ts": "application/typescript; charset=utf-8",
    ]
}
