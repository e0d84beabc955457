import KuraCore
import KuraHTTP
import KuraModel

/// One version of a file, ready to serve: its bytes, its gzip encoding (made once, here, when it pays), its
/// validators and the headers of each answer, built once so that serving it costs no work per request beyond
/// reading the request's conditional and `Accept-Encoding` headers.
public struct StaticFile: Sendable {
    public let contentType: String
    public let body: [UInt8]
    /// The gzip encoding, when the type compresses and the result is smaller.
    public let gzipped: [UInt8]?
    /// The strong validator of `body` (a hash of the bytes); the gzip encoding's is the same with `-gz`.
    public let etag: String
    public let gzipETag: String
    /// `Last-Modified`, when the file has a modification time.
    public let lastModified: String?
    private let plainHeaders: HTTPHeaders
    private let gzipHeaders: HTTPHeaders

    /// Files smaller than this are sent as they are: gzip's framing would eat the gain.
    static let minimumCompressedSize = 256

    /// Prepares `body` for serving; compresses it if `compress` and `contentType` is a text-like type.
    public init(
        body: [UInt8], contentType: String, cacheControl: String, modifiedSeconds: Int64?, compress: Bool = true,
        extraHeaders: [(String, String)] = []
    ) {
        self.contentType = contentType
        self.body = body
        var gzipped: [UInt8]?
        if compress && body.count >= Self.minimumCompressedSize && MediaType.isCompressible(contentType),
            let compressed = Gzip.compress(body), compressed.count < body.count
        {
            gzipped = compressed
        }
        self.gzipped = gzipped
        let hash = String(Self.fnv1a(body), radix: 36)
        etag = "\"\(hash)\""
        gzipETag = "\"\(hash)-gz\""
        lastModified = modifiedSeconds.map { WallClock.httpDate(seconds: $0) }
        var common: HTTPHeaders = ["Content-Type": contentType, "Cache-Control": cacheControl]
        if let lastModified { common.add("Last-Modified", lastModified) }
        common.add("X-Content-Type-Options", "nosniff")
        common.add("Accept-Ranges", "bytes")
        // Caches must keep the encodings apart once there is more than one.
        if gzipped != nil { common.add("Vary", "Accept-Encoding") }
        for (name, value) in extraHeaders { common.add(name, value) }
        var plain = common
        plain.add("ETag", etag)
        var encoded = common
        encoded.add("ETag", gzipETag)
        encoded.add("Content-Encoding", "gzip")
        plainHeaders = plain
        gzipHeaders = encoded
    }

    /// The answer to a GET or HEAD of this file: 304 when the client's copy is current (`If-None-Match`, else an
    /// `If-Modified-Since` equal to `Last-Modified`), the gzip encoding when the client accepts it.
    public func response(to request: Request, status: Int = 200) -> Response {
        let useGzip = gzipped != nil && Self.acceptsGzip(request.headers["Accept-Encoding"])
        let headers = useGzip ? gzipHeaders : plainHeaders
        if status == 200 && Self.isCurrent(request, etags: [etag, gzipETag], lastModified: lastModified) {
            return Response(status: 304, headers: headers)
        }
        if status == 200 {
            // A range is of the file's bytes as they are (RFC 9110 §14): gzip is for whole answers only.
            switch ByteRange.of(request, size: Int64(body.count), etag: etag, lastModified: lastModified) {
            case .full: break
            case .partial(let offset, let count):
                var headers = plainHeaders
                headers.add(
                    "Content-Range",
                    ByteRange.partial(offset: offset, count: count).contentRange(
                        size: Int64(body.count))!)
                return Response(status: 206, headers: headers, body: Array(body[Int(offset)..<Int(offset + count)]))
            case .unsatisfiable:
                return ByteRange.unsatisfiableResponse(size: Int64(body.count))
            }
        }
        return Response(status: status, headers: headers, body: useGzip ? gzipped! : body)
    }

    /// Whether the client's cached copy is the version with one of `etags` (or last modified at `lastModified`).
    static func isCurrent(_ request: Request, etags: [String], lastModified: String?) -> Bool {
        if let tags = request.headers["If-None-Match"] {
            for tag in tags.split(separator: ",") {
                var tag = Substring(String(tag).trimmingSpaces())
                if tag == "*" { return true }
                if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }  // If-None-Match compares weakly
                if etags.contains(where: { $0 == tag }) { return true }
            }
            return false
        }
        if let since = request.headers["If-Modified-Since"], let lastModified {
            // The date the client got from us, sent back as is (nginx's `if_modified_since exact`).
            return since == lastModified
        }
        return false
    }

    /// Whether `Accept-Encoding` admits gzip: a `gzip` or `*` coding whose `q` is not 0.
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let coding = parts.first else { continue }
            let name = String(coding).trimmingSpaces().lowercased()
            guard name == "gzip" || name == "x-gzip" || name == "*" else { continue }
            let refused = parts.dropFirst().contains { parameter in
                let text = String(parameter).trimmingSpaces().lowercased()
                return text.hasPrefix("q=") && (Double(text.dropFirst(2)) ?? 1) == 0
            }
            return !refused
        }
        return false
    }

    /// 64-bit FNV-1a: a fast content hash for validators (not a defence against anyone forging files).
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash ^ UInt64(bytes.count)
    }
}
