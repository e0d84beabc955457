import KuraCore
import KuraHTTP

/// What a request's `Range` header asks of a file (RFC 9110 §14): one range of bytes, all of it, or a range the
/// file cannot satisfy. Only GET is answered in part; a `Range` that does not parse, names another unit or asks
/// for several ranges gets the whole file (200), as RFC 9110 allows.
public enum ByteRange: Equatable, Sendable {
    /// The whole file (no usable `Range`, or `If-Range` no longer matches).
    case full
    /// `count` bytes from `offset`: 206 with `Content-Range: bytes offset-(offset+count-1)/size`.
    case partial(offset: Int64, count: Int64)
    /// No byte of the file is in the range: 416 with `Content-Range: bytes */size`.
    case unsatisfiable

    /// The range `request` asks of a file of `size` bytes whose validators are `etag` (strong) and `lastModified`.
    public static func of(_ request: Request, size: Int64, etag: String, lastModified: String?) -> ByteRange {
        guard request.method == .GET, let header = request.headers["Range"] else { return .full }
        if let condition = request.headers["If-Range"], !matches(condition, etag: etag, lastModified: lastModified) {
            return .full
        }
        return parse(header, size: size)
    }

    /// `If-Range`: an entity tag compared strongly (a weak one never matches), or a date equal to `Last-Modified`.
    static func matches(_ condition: String, etag: String, lastModified: String?) -> Bool {
        let value = condition.trimmingSpaces()
        if value.hasPrefix("\"") || value.hasPrefix("W/") { return value == etag }
        return lastModified != nil && value == lastModified
    }

    /// One `bytes=` range of a file of `size` bytes.
    public static func parse(_ header: String, size: Int64) -> ByteRange {
        let value = header.trimmingSpaces()
        guard value.count > 6, value.prefix(6).lowercased() == "bytes=" else { return .full }
        let spec = String(value.dropFirst(6)).trimmingSpaces()
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .full }
        let first = String(spec[..<dash]).trimmingSpaces()
        let last = String(spec[spec.index(after: dash)...]).trimmingSpaces()
        if first.isEmpty {
            // `bytes=-n`: the last n bytes.
            guard let suffix = digits(last) else { return .full }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            let count = min(suffix, size)
            return .partial(offset: size - count, count: count)
        }
        guard let start = digits(first) else { return .full }
        var end = size - 1
        if !last.isEmpty {
            guard let given = digits(last), given >= start else { return .full }
            end = min(given, size - 1)
        }
        guard start < size else { return .unsatisfiable }
        return .partial(offset: start, count: end - start + 1)
    }

    /// A decimal of digits only, or nil (also when it overflows).
    private static func digits(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int64(text)
    }

    /// `Content-Range` of this range in a file of `size` bytes (`bytes */size` when unsatisfiable).
    public func contentRange(size: Int64) -> String? {
        switch self {
        case .full: nil
        case .partial(let offset, let count): "bytes \(offset)-\(offset + count - 1)/\(size)"
        case .unsatisfiable: "bytes */\(size)"
        }
    }

    /// The 416 answer for a file of `size` bytes.
    static func unsatisfiableResponse(size: Int64) -> Response {
        var headers: HTTPHeaders = ["Content-Range": "bytes */\(size)", "Content-Type": "text/plain; charset=utf-8"]
        headers.add("Accept-Ranges", "bytes")
        headers.add("X-Content-Type-Options", "nosniff")
        return Response(status: 416, headers: headers, body: Array("Range Not Satisfiable\n".utf8))
    }
}
