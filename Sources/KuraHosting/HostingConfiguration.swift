/// Static hosting settings (`hosting.*`, docs/configuration.md).
public struct HostingConfiguration: Sendable {
    /// The directory whose files are served; nil serves none.
    public var root: String?
    /// Answer a browser's navigation (`Accept: text/html`) to a missing path with the root's `index.html`.
    public var spaFallback = false
    /// Files under this path prefix get `Cache-Control: public, max-age=31536000, immutable` (their names should
    /// change with their content); empty for none.
    public var immutablePrefix = "/assets/"
    /// `Cache-Control` of the other files that are not HTML (HTML always gets `no-cache`).
    public var cacheControl = "no-cache"
    /// How long a cached answer is used before the file is checked on disk again (0: at every request).
    public var revalidateMilliseconds = 1000
    /// Memory for cached files (their bytes and gzip encodings).
    public var cacheBytes = 64 << 20
    /// Paths remembered (files, directories and misses).
    public var cacheEntries = 10_000
    /// Files larger than this are read from disk for each request, on the worker pool, and never compressed.
    public var maxCachedFileBytes = 4 << 20

    public init() {}

    /// `Cache-Control` for the file at `path` (a request path) of type `contentType`.
    func cacheControl(path: String, contentType: String) -> String {
        if MediaType.isHTML(contentType) { return "no-cache" }
        if !immutablePrefix.isEmpty && path.hasPrefix(immutablePrefix) { return "public, max-age=31536000, immutable" }
        return cacheControl
    }
}
