import KuraCore
import KuraModel
import KuraStore

/// What one listener watches: a single document, or the results of a query.
public struct ListenTarget: Sendable {
    /// The kinds of target.
    public enum Kind: Sendable {
        /// One document (its snapshot holds it, or nothing when it does not exist).
        case document(DocumentPath)
        /// A query, as `POST /api/query` takes it; `limit` keeps a window of that many documents.
        case query(StructuredQuery, QueryMatcher)
    }

    /// The client's name for the target, unique on its stream: 1–64 characters of `A–Z a–z 0–9 - _ .`
    /// (so that event ids can name it, see `StreamPosition`).
    public let id: String
    /// What is watched.
    public let kind: Kind
    /// A query target's matcher, boxed: the change feed matches and orders with it for every listener a write
    /// concerns, and taking it out of `kind` would copy the whole query each time.
    private let query: QueryBox?

    private final class QueryBox: Sendable {
        let matcher: QueryMatcher

        init(_ matcher: QueryMatcher) {
            self.matcher = matcher
        }
    }

    /// Longest target id.
    public static let maxIDLength = 64

    /// A document target; throws 400 for a bad id.
    public init(id: String, document: DocumentPath) throws {
        try Self.validate(id)
        self.id = id
        kind = .document(document)
        self.query = nil
        limit = nil
        select = nil
    }

    /// A query target; throws 400 `INVALID_QUERY` for a query that cannot run, 400 for a bad id.
    public init(id: String, query: StructuredQuery) throws {
        try Self.validate(id)
        if query.pageToken != nil { throw APIError.invalidQuery("listeners take no 'pageToken'") }
        self.id = id
        let matcher = try QueryMatcher(query)
        kind = .query(query, matcher)
        self.query = QueryBox(matcher)
        limit = query.limit
        select = query.select
    }

    /// Throws 400 `INVALID_ARGUMENT` unless `id` is a valid target id.
    public static func validate(_ id: String) throws {
        guard !id.isEmpty, id.utf8.count <= maxIDLength, id.utf8.allSatisfy(isIDByte) else {
            throw APIError.badRequest(
                "target ids are 1 to \(maxIDLength) characters of A-Z a-z 0-9 - _ . ('\(id.prefix(80))')")
        }
    }

    static func isIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    /// The query's limit (a window), if any.
    let limit: Int?

    /// The fields delivered (`select`), if the query projects.
    let select: [FieldPath]?

    /// Whether a document at `path` can belong to the target at all (its document, or the query's source).
    func covers(_ path: DocumentPath) -> Bool {
        if let query { return query.matcher.inSource(path) }
        guard case .document(let target) = kind else { return false }
        return target == path
    }

    /// Whether `document` is in the target's results, rules aside (a query's limit aside too).
    func matches(_ document: Document) -> Bool {
        if let query { return query.matcher.matches(document) }
        guard case .document(let target) = kind else { return false }
        return document.path == target
    }

    /// The target's order; documents of a document target never need ordering.
    func compare(_ lhs: Document, _ rhs: Document) -> Int {
        query?.matcher.compare(lhs, rhs) ?? 0
    }
}
