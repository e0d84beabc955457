import Foundation
internal import KuraModel

/// A document's location (`users/u1/todos/t9`); it may or may not exist. Cheap to make: nothing is sent until
/// you read or write. A malformed path fails those calls with `.invalidPath`.
public struct DocumentReference: Sendable, Hashable, CustomStringConvertible {
    let kura: Kura
    let segments: [String]

    init(kura: Kura, segments: [String]) {
        self.kura = kura
        self.segments = segments
    }

    /// The slash-separated path.
    public var path: String { segments.joined(separator: "/") }
    /// The last segment.
    public var documentID: String { segments.last ?? "" }
    /// The collection holding this document.
    public var parent: CollectionReference { CollectionReference(kura: kura, segments: Array(segments.dropLast())) }
    /// A subcollection of this document.
    public func collection(_ path: String) -> CollectionReference {
        CollectionReference(kura: kura, segments: segments + ResourcePath.split(path))
    }

    public var description: String { "DocumentReference(\(path))" }

    /// Same database and same path, byte for byte (docs/api.md, "Identity").
    public static func == (lhs: DocumentReference, rhs: DocumentReference) -> Bool {
        lhs.kura === rhs.kura && lhs.segments.bytesEqual(rhs.segments)
    }

    public func hash(into hasher: inout Hasher) { segments.hashBytes(into: &hasher) }

    var apiPath: String { "/api/docs/" + PathEncoding.path(segments) }

    func validated() throws -> DocumentReference {
        try ResourcePath.validate(segments, document: true)
        return self
    }

    // MARK: Reading

    /// Reads the document; `exists` is `false` when there is none. With offline persistence, a server that cannot
    /// be reached makes this answer from the cache (`metadata.isFromCache`); `source` can force either.
    public func getDocument(source: Source = .default) async throws -> DocumentSnapshot {
        try ResourcePath.validate(segments, document: true)
        if let offline = kura.offline { return try await offline.getDocument(self, source: source) }
        guard source != .cache else { throw KuraError(.unavailable, "offline persistence is off; nothing is cached") }
        return DocumentSnapshot(reference: self, document: try await fetch())
    }

    /// Reads and decodes the document (`@DocumentID` properties get its ID). Throws `.notFound` when it does not
    /// exist.
    public func getDocument<T: Decodable>(as type: T.Type, source: Source = .default) async throws -> T {
        try await getDocument(source: source).data(as: type)
    }

    /// `GET /api/docs/{path}`: the document, or `nil` for a 404.
    func fetch() async throws -> RemoteDocument? {
        do {
            let response = try await kura.call(APIRequest("GET", apiPath))
            guard let body = response.body else { throw KuraError.invalidResponse("an empty document answer") }
            return try RemoteDocument(json: body)
        } catch let error as KuraError where error.code == .notFound && error.status == 404 {
            return nil
        }
    }

    // MARK: Writing

    /// Creates or replaces the document; with `merge`, deep-merges `data` into it. `FieldValue` sentinels
    /// (`serverTimestamp()`, `increment(_:)`…) are applied by the server in the same atomic commit.
    public func setData(_ data: DocumentData, merge: Bool = false) async throws {
        try await kura.commit([try Write.set(path, data, merge: merge)])
    }

    /// Creates or replaces the document with an `Encodable` value (dates become RFC 3339 strings).
    public func setData<T: Encodable>(from value: T, merge: Bool = false) async throws {
        try await setData(try DocumentCoding.encode(value), merge: merge)
    }

    /// Sets the named fields (keys are dotted field paths: `"address.city"`). Throws `.notFound` when the
    /// document does not exist.
    public func updateData(_ fields: DocumentData) async throws {
        try await kura.commit([try Write.update(path, fields)])
    }

    /// Deletes the document (succeeds when there was none). Its subcollections are not deleted.
    public func delete() async throws {
        try await kura.commit([Write.delete(path)])
    }
}

/// Where a read is answered from.
public enum Source: Sendable {
    /// The server, or the offline cache when the server cannot be reached (with persistence on).
    case `default`
    /// The server only; fails with `.unavailable` when it cannot be reached.
    case server
    /// The offline cache only (with persistence on).
    case cache
}

/// A collection's location (`users/u1/todos`), and a query over all of its documents.
public struct CollectionReference: Queryable, Hashable, CustomStringConvertible {
    let segments: [String]
    public let query: Query

    init(kura: Kura, segments: [String]) {
        self.segments = segments
        query = Query(kura: kura, source: .collection(segments))
    }

    var kura: Kura { query.kura }
    public var path: String { segments.joined(separator: "/") }
    /// The last segment.
    public var collectionID: String { segments.last ?? "" }
    /// The document holding this collection, `nil` for a top-level one.
    public var parent: DocumentReference? {
        segments.count > 1 ? DocumentReference(kura: kura, segments: Array(segments.dropLast())) : nil
    }

    /// The document `path` in this collection (`document(uid)`, or a longer relative path).
    public func document(_ path: String) -> DocumentReference {
        DocumentReference(kura: kura, segments: segments + ResourcePath.split(path))
    }

    /// A new document with an automatic ID (made on the client, in the server's format); nothing is written.
    public func document() -> DocumentReference { document(AutoID.make()) }

    /// Creates a document with an automatic ID and returns its reference.
    @discardableResult
    public func addDocument(data: DocumentData) async throws -> DocumentReference {
        try ResourcePath.validate(segments, document: false)
        let reference = document()
        // `create`, so a retried request can never overwrite: the ID is new, a second attempt finds it taken.
        try await kura.commit([try Write.create(reference.path, data)])
        return reference
    }

    /// Creates a document with an automatic ID from an `Encodable` value.
    @discardableResult
    public func addDocument<T: Encodable>(from value: T) async throws -> DocumentReference {
        try await addDocument(data: try DocumentCoding.encode(value))
    }

    public var description: String { "CollectionReference(\(path))" }

    /// Same database and same path, byte for byte (docs/api.md, "Identity").
    public static func == (lhs: CollectionReference, rhs: CollectionReference) -> Bool {
        lhs.kura === rhs.kura && lhs.segments.bytesEqual(rhs.segments)
    }

    public func hash(into hasher: inout Hasher) { segments.hashBytes(into: &hasher) }
}
