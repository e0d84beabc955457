import KuraCore
import KuraHTTP
import KuraModel
import Synchronization

/// Serves the files under the hosting root (docs/api.md, "Static hosting"). What it learns about a path (a file
/// ready to serve, a directory, nothing) is kept in a bounded in-memory cache; a cached answer younger than
/// `revalidateMilliseconds` is given on the event loop, anything else goes to the worker pool, which checks the
/// disk (realpath and stat), reads and compresses a file only when its identity changed, and answers from there.
public final class StaticSite: Sendable {
    public let configuration: HostingConfiguration
    private let root: HostingRoot
    private let cache: Mutex<FileCache>
    /// Each loop's memo of fresh answers from `cache`, so that serving a hot file takes no lock shared between
    /// loops (two loops contending for it cost more than the rest of the request).
    private let loopMemos: LoopLocal<LoopMemo>

    /// What large-file streams cost (bytes read, the most one stream had queued).
    public let streamCounters = StreamCounters()

    /// Checks that the root is a directory, and neither is nor lies inside `dataDirectory` (whose contents are
    /// then never served or opened, wherever they turn up under the root); reads nothing else yet. `eventLoops`
    /// is the server's loop count.
    public init(configuration: HostingConfiguration, eventLoops: Int, dataDirectory: String? = nil)
        throws(HostingError)
    {
        guard let directory = configuration.root else { throw HostingError("hosting.root is not set") }
        self.configuration = configuration
        root = try HostingRoot(directory, protecting: dataDirectory)
        cache = Mutex(
            FileCache(maxBytes: configuration.cacheBytes, maxEntries: configuration.cacheEntries))
        loopMemos = LoopLocal(loops: eventLoops) { LoopMemo() }
    }

    /// Refuses (with a sentence saying why and what to do) a hosting root that is the data directory or lies
    /// inside it. A data directory inside the root is allowed: it is never served.
    public static func checkPlacement(root: String, dataDirectory: String) throws(HostingError) {
        try HostingRoot.checkPlacement(root: root, dataDirectory: dataDirectory)
    }

    /// The answer to `request` for a path outside the server's own routes: the file, a redirect to the directory's
    /// `/`, the SPA fallback, or 404 (JSON for `Accept: application/json`, a page otherwise).
    public func respond(to request: Request, environment: RequestEnvironment) -> Response {
        guard request.method == .GET || request.method == .HEAD else {
            return Response(
                error: .methodNotAllowed("\(request.method) is not allowed on a static file", allow: ["GET", "HEAD"]))
        }
        guard let hosted = HostedPath(request.path) else { return Self.notFound(request) }
        let now = MonotonicClock.nanoseconds()
        let freshFor = UInt64(configuration.revalidateMilliseconds) * 1_000_000
        let loop = environment.eventLoop
        let maxEntries = configuration.cacheEntries
        let cached = { (path: HostedPath) -> FileCache.Resolution? in
            let key = path.key
            if let hit = self.loopMemos.withValue(on: loop, { $0.lookup(key, now: now, freshFor: freshFor) }) ?? nil {
                return hit
            }
            guard let found = self.cache.withLock({ $0.lookupChecked(key, now: now, freshFor: freshFor) }) else {
                return nil
            }
            self.loopMemos.withValue(on: loop) {
                $0.remember(key, found, now: now, freshFor: freshFor, maxEntries: maxEntries)
            }
            return found.resolution
        }
        if let response = answer(request, hosted, environment, onPool: false, resolve: cached) { return response }
        return environment.offload { [self] in
            let response = answer(request, hosted, environment, onPool: true, resolve: { path in self.load(path) })
            return response ?? Self.notFound(request)
        }
    }

    /// The response from what `resolve` knows of the paths involved; nil when it does not know one of them yet
    /// (or, off the pool, the file is too large to be cached and must be read), so the caller asks again on the pool.
    private func answer(
        _ request: Request, _ hosted: HostedPath, _ environment: RequestEnvironment, onPool: Bool,
        resolve: (HostedPath) -> FileCache.Resolution?
    ) -> Response? {
        guard let resolution = resolve(hosted) else { return nil }
        switch resolution {
        case .file(let file, _):
            return file.response(to: request)
        case .largeFile(let path, _):
            guard onPool else { return nil }
            return streamLarge(request, path, hosted, environment)
        case .directory:
            var location = request.path + "/"
            if let query = request.queryString { location += "?" + query }
            return Response(
                status: 301, headers: ["Location": String(location), "Content-Type": "text/plain; charset=utf-8"],
                body: Array("Moved to \(location)\n".utf8))
        case .missing:
            guard configuration.spaFallback, Self.isNavigation(request), !hosted.segments.isEmpty,
                let index = HostedPath("/")
            else { return Self.notFound(request) }
            guard let fallback = resolve(index) else { return nil }
            if case .file(let file, _) = fallback { return file.response(to: request) }
            return Self.notFound(request)
        }
    }

    /// On the worker pool: what is at `hosted` now. A cached file whose identity is unchanged is kept as it is.
    private func load(_ hosted: HostedPath) -> FileCache.Resolution {
        let key = hosted.key
        let found = root.find(hosted)
        let now = MonotonicClock.nanoseconds()
        let resolution: FileCache.Resolution
        switch found {
        case .missing: resolution = .missing
        case .directory: resolution = .directory
        case .file(let path, let identity):
            if let known = cache.withLock({ $0.revalidate(key, identity: identity, now: now) }) { return known }
            if identity.size > Int64(configuration.maxCachedFileBytes) {
                resolution = .largeFile(path: path, identity: identity)
            } else if let bytes = root.read(path, identity: identity) {
                let type = MediaType.forFile(named: path)
                resolution = .file(
                    StaticFile(
                        body: bytes, contentType: type,
                        cacheControl: configuration.cacheControl(path: key, contentType: type),
                        modifiedSeconds: identity.modifiedSeconds),
                    identity)
            } else {
                resolution = .missing
            }
        }
        cache.withLock { $0.store(key, resolution, now: now) }
        return resolution
    }

    /// A file too large for the cache, opened for this one request (on the pool) and streamed from disk in chunks,
    /// uncompressed; ranges and validators as for cached files, with an ETag made of the file's identity.
    private func streamLarge(
        _ request: Request, _ path: String, _ hosted: HostedPath, _ environment: RequestEnvironment
    ) -> Response {
        guard let file = root.open(path) else { return Self.notFound(request) }
        let identity = file.identity
        let type = MediaType.forFile(named: path)
        let etag =
            "\"" + String(identity.inode, radix: 36) + "-" + String(identity.size, radix: 36) + "-"
            + String(identity.modifiedNanos, radix: 36) + "\""
        let lastModified = WallClock.httpDate(seconds: identity.modifiedSeconds)
        var headers: HTTPHeaders = [
            "Content-Type": type, "Cache-Control": configuration.cacheControl(path: hosted.key, contentType: type),
        ]
        headers.add("Last-Modified", lastModified)
        headers.add("ETag", etag)
        headers.add("Accept-Ranges", "bytes")
        headers.add("X-Content-Type-Options", "nosniff")
        if StaticFile.isCurrent(request, etags: [etag], lastModified: lastModified) {
            return Response(status: 304, headers: headers)
        }
        let size = identity.size
        var (status, offset, count) = (200, Int64(0), size)
        switch ByteRange.of(request, size: size, etag: etag, lastModified: lastModified) {
        case .full: break
        case .partial(let from, let length):
            (status, offset, count) = (206, from, length)
            headers.add("Content-Range", ByteRange.partial(offset: from, count: length).contentRange(size: size)!)
        case .unsatisfiable:
            return ByteRange.unsatisfiableResponse(size: size)
        }
        headers.add("Content-Length", String(count))
        let workers = environment.workers
        let counters = streamCounters
        let sendsBody = request.method == .GET && count > 0
        return .stream(status: status, headers: headers) { [offset, count] stream in
            guard sendsBody else { return stream.finish() }
            FileStream(
                file: file, offset: offset, count: count, stream: stream, workers: workers, counters: counters
            ).next()
        }
    }

    /// A browser navigating to a page (not a script, image or API call).
    static func isNavigation(_ request: Request) -> Bool {
        request.headers["Accept"]?.contains("text/html") == true
    }

    /// 404 for a path the hosting refuses or does not have: the JSON error for clients that ask for JSON, a short
    /// page otherwise. It says nothing about why (refused and absent look the same).
    public static func notFound(_ request: Request) -> Response {
        if request.headers["Accept"]?.contains("application/json") == true {
            return Response(error: .notFound("nothing at \(request.path)"))
        }
        var response = Response.html(notFoundPage, status: 404)
        response.headers.add("X-Content-Type-Options", "nosniff")
        return response
    }

    static let notFoundPage = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Not found</title></head>
        <body><h1>Not found</h1><p>There is nothing at this address.</p></body></html>
        """
}

/// One loop's copy of fresh `FileCache` answers. It starts over every revalidation interval (and when it holds
/// `hosting.cacheEntries` paths), so it never keeps a file the shared cache dropped for longer than that.
struct LoopMemo {
    private var entries: [String: (resolution: FileCache.Resolution, checked: UInt64)] = [:]
    private var started: UInt64 = 0

    mutating func lookup(_ key: String, now: UInt64, freshFor: UInt64) -> FileCache.Resolution? {
        guard let entry = entries[key], now &- entry.checked < freshFor else { return nil }
        return entry.resolution
    }

    mutating func remember(
        _ key: String, _ entry: (resolution: FileCache.Resolution, checked: UInt64), now: UInt64, freshFor: UInt64,
        maxEntries: Int
    ) {
        if now &- started >= freshFor || entries.count >= maxEntries {
            entries.removeAll(keepingCapacity: true)
            started = now
        }
        entries[key] = entry
    }
}
