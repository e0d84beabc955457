/// Validation shared by `DocumentPath` and `CollectionPath`: segments alternate collection ID / document ID,
/// `users/u1/todos/t9`.
///
/// An ID is 1–1500 bytes of UTF-8, contains no `/`, is not `.` or `..`, and does not match `__.*__`.
/// A path has at most 100 segments. Violations are 400 `INVALID_PATH`.
public enum ResourcePath {
    /// Longest ID in UTF-8 bytes.
    public static let maxIDBytes = 1500
    /// Most segments in a path.
    public static let maxSegments = 100

    package static func invalid(_ message: String) -> ValidationError {
        .invalidPath(message)
    }

    /// Throws unless `id` is a valid collection or document ID.
    public static func validateID(_ id: String) throws {
        if id.utf8.contains(slash) { throw invalid("IDs must not contain '/'") }
        try validateSegment(id)
    }

    /// `validateID` for a segment known to hold no `/`.
    private static func validateSegment(_ id: String) throws {
        let bytes = id.utf8
        if bytes.isEmpty { throw invalid("path segments must not be empty") }
        if bytes.count > maxIDBytes { throw invalid("IDs are at most \(maxIDBytes) bytes") }
        if bytes.count <= 2 && bytes.allSatisfy({ $0 == dot }) { throw invalid("'.' and '..' are not valid IDs") }
        if bytes.count >= 4 && bytes.starts(with: reserved) && bytes.reversed().starts(with: reserved) {
            throw invalid("IDs matching __.*__ are reserved")
        }
    }

    private static let slash = UInt8(ascii: "/")
    private static let dot = UInt8(ascii: ".")
    private static let reserved = "__".utf8

    /// Splits and validates `string`; a single leading or trailing `/` is tolerated. Works on UTF-8 bytes: every
    /// document request parses its path, and splitting by `Character` was a visible share of a cached GET.
    package static func segments(_ string: String) throws -> [String] {
        var string = string
        // Over contiguous bytes (`withUTF8` makes the string native first if it is not).
        let segments = try string.withUTF8 { bytes throws(ValidationError) -> [String] in
            var start = 0
            var end = bytes.count
            if start < end && bytes[start] == slash { start += 1 }
            if start < end && bytes[end - 1] == slash { end -= 1 }
            if start >= end { throw invalid("the path is empty") }
            // Exactly as many as there are: paths are kept by the million (cache slots, index keys), and an array
            // grown by appending keeps up to twice the room it needs.
            var count = 1
            for position in start..<end where bytes[position] == slash { count += 1 }
            var segments: [String] = []
            segments.reserveCapacity(count)
            var segmentStart = start
            for position in start..<end where bytes[position] == slash {
                segments.append(
                    String(decoding: UnsafeBufferPointer(rebasing: bytes[segmentStart..<position]), as: UTF8.self))
                if segments.count >= maxSegments { throw invalid("paths have at most \(maxSegments) segments") }
                segmentStart = position + 1
            }
            segments.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[segmentStart..<end]), as: UTF8.self))
            return segments
        }
        for segment in segments { try validateSegment(segment) }
        return segments
    }
}

/// The path of a document: an even number of valid segments, e.g. `users/u1`. Valid by construction.
///
/// Identity is the UTF-8 bytes of the segments (`==`, `hash(into:)` and `<`), never `String`'s canonical
/// equivalence: `users/か\u{3099}` and `users/が` are two documents, as in the database.
public struct DocumentPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The segments, alternating collection ID and document ID.
    public let segments: [String]

    /// Parses and validates a document path; throws 400 `INVALID_PATH`.
    public init(_ string: String) throws {
        let segments = try ResourcePath.segments(string)
        guard segments.count % 2 == 0 else {
            throw ResourcePath.invalid("'\(string.prefix(200))' is a collection path, not a document path")
        }
        self.segments = segments
    }

    /// The document `id` in `collection`.
    public init(collection: CollectionPath, id: String) throws {
        try ResourcePath.validateID(id)
        guard collection.segments.count + 1 <= ResourcePath.maxSegments else {
            throw ResourcePath.invalid("paths have at most \(ResourcePath.maxSegments) segments")
        }
        segments = collection.segments + [id]
    }

    /// The document ID (last segment).
    public var id: String { segments[segments.count - 1] }
    /// The collection holding this document.
    public var collection: CollectionPath { CollectionPath(validated: Array(segments.dropLast())) }
    /// `users/u1`.
    public var description: String { segments.joined(separator: "/") }

    /// Segment-by-segment order (a parent sorts before its descendants), IDs compared by UTF-8 bytes.
    public static func < (lhs: DocumentPath, rhs: DocumentPath) -> Bool {
        ResourcePath.segmentsPrecede(lhs.segments, rhs.segments)
    }

    /// Same segments, byte for byte.
    public static func == (lhs: DocumentPath, rhs: DocumentPath) -> Bool { lhs.segments.bytesEqual(rhs.segments) }

    public func hash(into hasher: inout Hasher) { segments.hashBytes(into: &hasher) }
}

/// The path of a collection: an odd number of valid segments, e.g. `users` or `users/u1/todos`. Identity is the
/// UTF-8 bytes of the segments, as for `DocumentPath`.
public struct CollectionPath: Sendable, Hashable, CustomStringConvertible {
    /// The segments; the last one is the collection ID.
    public let segments: [String]

    /// Parses and validates a collection path; throws 400 `INVALID_PATH`.
    public init(_ string: String) throws {
        let segments = try ResourcePath.segments(string)
        guard segments.count % 2 == 1 else {
            throw ResourcePath.invalid("'\(string.prefix(200))' is a document path, not a collection path")
        }
        self.segments = segments
    }

    package init(validated segments: [String]) { self.segments = segments }

    /// The collection ID (last segment), which collection-group queries match on.
    public var collectionID: String { segments[segments.count - 1] }
    /// The document this collection is nested under, if any.
    public var parent: DocumentPath? {
        segments.count > 1 ? try? DocumentPath(segments.dropLast().joined(separator: "/")) : nil
    }
    /// `users/u1/todos`.
    public var description: String { segments.joined(separator: "/") }

    /// The document `id` in this collection.
    public func document(_ id: String) throws -> DocumentPath { try DocumentPath(collection: self, id: id) }

    /// Same segments, byte for byte.
    public static func == (lhs: CollectionPath, rhs: CollectionPath) -> Bool {
        lhs.segments.bytesEqual(rhs.segments)
    }

    public func hash(into hasher: inout Hasher) { segments.hashBytes(into: &hasher) }
}

extension ResourcePath {
    package static func segmentsPrecede(_ lhs: [String], _ rhs: [String]) -> Bool {
        for (l, r) in zip(lhs, rhs) where !l.bytesEqual(r) {
            return l.bytesPrecede(r)
        }
        return lhs.count < rhs.count
    }
}
