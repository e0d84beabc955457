import KuraHTTP

/// A request path that may name a file under the hosting root, or nothing: the check is on the path's form alone,
/// before any disk access. Refused (nil): no leading `/`, empty segments (`//`), malformed percent-encoding, and
/// any segment that decodes to something starting with `.` (`.`, `..`, dotfiles such as `.env` or `.git`) or
/// containing `/`, `\` or NUL (encoded traversal: `%2e%2e`, `..%2f`, `%5c`). Symlinks are checked on disk.
public struct HostedPath: Sendable, Hashable {
    /// The decoded segments, none empty.
    public let segments: [String]
    /// Whether the path ends in `/` (a directory: its `index.html` is served).
    public let isDirectory: Bool

    public init?(_ raw: Substring) {
        guard raw.first == "/" else { return nil }
        var parts = raw.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        var isDirectory = false
        if parts.last?.isEmpty == true {
            isDirectory = true
            parts.removeLast()
        }
        var segments: [String] = []
        segments.reserveCapacity(parts.count)
        for part in parts {
            guard !part.isEmpty, let segment = PercentDecoding.decode(part), Self.isAllowed(segment) else { return nil }
            segments.append(segment)
        }
        self.segments = segments
        self.isDirectory = isDirectory || segments.isEmpty
    }

    /// The path relative to the root, `/`-joined (`assets/app.js`; empty for the root itself).
    public var relative: String { segments.joined(separator: "/") }

    /// The canonical form, used as the cache key: `/assets/app.js`, `/docs/`.
    public var key: String { "/" + relative + (isDirectory && !segments.isEmpty ? "/" : "") }

    static func isAllowed(_ segment: String) -> Bool {
        guard let first = segment.utf8.first, first != UInt8(ascii: ".") else { return false }
        return !segment.utf8.contains { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") || $0 == 0 }
    }
}
