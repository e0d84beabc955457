import Foundation
internal import KuraModel

/// A document as the server answers it: `{"id","path","createTime","updateTime","version","data"}`.
struct RemoteDocument: Sendable, Equatable {
    var path: String
    var data: DocumentData
    var createTime: String
    var updateTime: String
    var version: Int64
    /// Fields holding a local estimate of a `FieldValue.serverTimestamp()` not yet acknowledged (dotted path →
    /// the value before the write, `nil` when there was none). Never stored in the cache.
    var pendingServerTimestamps: [String: KuraValue?] = [:]

    init(path: String, data: DocumentData, createTime: String, updateTime: String, version: Int64) {
        self.path = path
        self.data = data
        self.createTime = createTime
        self.updateTime = updateTime
        self.version = version
    }

    init(json: KuraValue) throws {
        guard let path = json["path"]?.stringValue, let version = json["version"]?.int64Value else {
            throw KuraError.invalidResponse("a document without 'path' or 'version'")
        }
        self.path = path
        self.version = version
        data = json["data"]?.mapValue ?? [:]
        createTime = json["createTime"]?.stringValue ?? ""
        updateTime = json["updateTime"]?.stringValue ?? ""
    }

    var json: KuraValue {
        [
            "path": .string(path), "id": .string(id), "data": .map(data), "createTime": .string(createTime),
            "updateTime": .string(updateTime), "version": .integer(version),
        ]
    }

    var id: String { ResourcePath.split(path).last ?? "" }

    /// The value at a dotted field path (`"address.city"`), or one of the metadata fields `id`, `createTime`,
    /// `updateTime` when the path names one, as queries see them.
    func value(at fieldPath: String) -> KuraValue? {
        switch fieldPath {
        case "id": return .string(id)
        case "createTime": return .string(createTime)
        case "updateTime": return .string(updateTime)
        default: return Self.value(in: data, at: Self.fieldNames(fieldPath))
        }
    }

    /// `data` with each pending server timestamp read as `behavior` says.
    func data(with behavior: ServerTimestampBehavior) -> DocumentData {
        guard behavior != .estimate, !pendingServerTimestamps.isEmpty else { return data }
        var result = data
        for (field, previous) in pendingServerTimestamps {
            let value: KuraValue = behavior == .previous ? (previous ?? .null) : .null
            LocalEvaluation.set(&result, field, value)
        }
        return result
    }

    /// The field names of a dotted field path, parsed as the server parses it (KuraModel's `FieldPath`); none for
    /// a path the server would refuse (no field has it).
    static func fieldNames(_ fieldPath: String) -> [String] { (try? FieldPath(fieldPath))?.segments ?? [] }

    static func value(in data: DocumentData, at names: [String]) -> KuraValue? {
        guard let first = names.first, var value = data[first] else { return nil }
        for name in names.dropFirst() {
            guard let next = value[name] else { return nil }
            value = next
        }
        return value
    }
}

/// How `data(with:)` and `get(_:serverTimestampBehavior:)` read a field whose `FieldValue.serverTimestamp()` the
/// server has not acknowledged yet (with offline persistence, a pending write), as Firestore's.
public enum ServerTimestampBehavior: Sendable {
    /// `NSNull` (Firestore's default).
    case none
    /// The local estimate: the time the write was made.
    case estimate
    /// The field's value before the write (`NSNull` when it had none).
    case previous
}

/// Where a snapshot's data came from.
public struct SnapshotMetadata: Sendable, Equatable {
    /// The data came from the offline cache because the server could not be reached.
    public var isFromCache: Bool
    /// The data includes local writes the server has not acknowledged yet.
    public var hasPendingWrites: Bool

    public init(isFromCache: Bool = false, hasPendingWrites: Bool = false) {
        self.isFromCache = isFromCache
        self.hasPendingWrites = hasPendingWrites
    }

    /// The metadata of one document of a query snapshot with these metadata: the same `isFromCache`, and
    /// `hasPendingWrites` only when that document has a pending write.
    func forDocument(pending: Bool) -> SnapshotMetadata {
        SnapshotMetadata(isFromCache: isFromCache, hasPendingWrites: hasPendingWrites && pending)
    }
}

/// A document read at one moment; `exists` is `false` when there was none.
public struct DocumentSnapshot: Sendable {
    public let reference: DocumentReference
    public let metadata: SnapshotMetadata
    let document: RemoteDocument?

    init(reference: DocumentReference, document: RemoteDocument?, metadata: SnapshotMetadata = .init()) {
        self.reference = reference
        self.document = document
        self.metadata = metadata
    }

    public var documentID: String { reference.documentID }
    public var exists: Bool { document != nil }
    /// The fields as Firestore gives them (`data["title"] as? String`, `as? Int`, `as? Timestamp`…; see
    /// `KuraValue.bridged`), or `nil` when the document does not exist.
    ///
    /// A server timestamp that the server has not acknowledged yet reads as `NSNull`, as in Firestore; see
    /// `data(with:)`.
    public func data() -> [String: Any]? { data(with: .none) }
    /// `data()`, with pending server timestamps read as `behavior` says.
    public func data(with behavior: ServerTimestampBehavior) -> [String: Any]? {
        document?.data(with: behavior).bridged
    }
    /// One field as Firestore gives it, with a pending server timestamp read as `behavior` says.
    public func get(_ field: String, serverTimestampBehavior behavior: ServerTimestampBehavior) -> Any? {
        document.flatMap { RemoteDocument.value(in: $0.data(with: behavior), at: RemoteDocument.fieldNames(field)) }?
            .bridged
    }
    /// The fields as typed values, or `nil` when the document does not exist.
    public var fields: DocumentData? { document?.data }
    /// One field by dotted path (`"address.city"`) as Firestore gives it (`Any`, see `data()`).
    public func get(_ field: String) -> Any? { document?.value(at: field)?.bridged }
    /// One field by dotted path (`"address.city"`) as a typed value: `snapshot["title"]?.stringValue`.
    public subscript(field: String) -> KuraValue? { document?.value(at: field) }
    /// The document decoded into `T` (`@DocumentID` properties get the document's ID). Throws `.notFound` when
    /// the document does not exist.
    public func data<T: Decodable>(as type: T.Type) throws -> T {
        guard let document else { throw KuraError(.notFound, "no document at \(reference.path)") }
        return try DocumentCoding.decode(type, from: document.data, documentID: documentID)
    }
    public var createTime: Date? { document.flatMap { RFC3339.date(from: $0.createTime) } }
    public var updateTime: Date? { document.flatMap { RFC3339.date(from: $0.updateTime) } }
    /// The server's version of the document: 1 on creation, +1 per write (what transactions check).
    public var version: Int64? { document?.version }
}

/// A document a query found (so it exists, and `data()` is not optional).
public struct QueryDocumentSnapshot: Sendable {
    public let reference: DocumentReference
    public let metadata: SnapshotMetadata
    let document: RemoteDocument

    init(reference: DocumentReference, document: RemoteDocument, metadata: SnapshotMetadata = .init()) {
        self.reference = reference
        self.document = document
        self.metadata = metadata
    }

    public var documentID: String { reference.documentID }
    /// The fields as Firestore gives them (`data["title"] as? String`; see `KuraValue.bridged`).
    /// A server timestamp that the server has not acknowledged yet reads as `NSNull`; see `data(with:)`.
    public func data() -> [String: Any] { data(with: .none) }
    /// `data()`, with pending server timestamps read as `behavior` says.
    public func data(with behavior: ServerTimestampBehavior) -> [String: Any] {
        document.data(with: behavior).bridged
    }
    /// One field as Firestore gives it, with a pending server timestamp read as `behavior` says.
    public func get(_ field: String, serverTimestampBehavior behavior: ServerTimestampBehavior) -> Any? {
        RemoteDocument.value(in: document.data(with: behavior), at: RemoteDocument.fieldNames(field))?.bridged
    }
    /// The fields as typed values.
    public var fields: DocumentData { document.data }
    /// One field by dotted path as Firestore gives it (`Any`).
    public func get(_ field: String) -> Any? { document.value(at: field)?.bridged }
    /// One field by dotted path as a typed value: `document["title"]?.stringValue`.
    public subscript(field: String) -> KuraValue? { document.value(at: field) }
    public func data<T: Decodable>(as type: T.Type) throws -> T {
        try DocumentCoding.decode(type, from: document.data, documentID: documentID)
    }
    public var createTime: Date? { RFC3339.date(from: document.createTime) }
    public var updateTime: Date? { RFC3339.date(from: document.updateTime) }
    public var version: Int64 { document.version }
}

/// The result of a query: its documents in order, and for listeners what changed since the previous snapshot.
public struct QuerySnapshot: Sendable {
    public let query: Query
    public let documents: [QueryDocumentSnapshot]
    /// For a listener: the changes since the previous snapshot (all `.added` in the first one). For
    /// `getDocuments()`: every document as `.added`.
    public let documentChanges: [DocumentChange]
    public let metadata: SnapshotMetadata

    public var count: Int { documents.count }
    public var isEmpty: Bool { documents.isEmpty }
}

/// One change between two snapshots of a query.
public struct DocumentChange: Sendable {
    public enum Kind: String, Sendable {
        case added, modified, removed
    }

    public let type: Kind
    /// The document after the change (before it, for `.removed`).
    public let document: QueryDocumentSnapshot
    /// Its position in the previous snapshot; `nil` for `.added`.
    public let oldIndex: Int?
    /// Its position in the new snapshot; `nil` for `.removed`.
    public let newIndex: Int?
}
