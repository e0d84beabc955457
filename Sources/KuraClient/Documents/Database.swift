import Foundation
internal import KuraModel

/// A thin Realtime Database facade over Kura's documents, for code like Firebase's RTDB tutorials
/// (`Database.database().reference().child("users").child(uid).child("items").childByAutoId()`). Kura has no tree
/// database; a path is read the way Firestore paths are, alternating collection and document:
///
/// - an even number of segments (`users/u1/items/i1`) names a **document**: `setValue([String: Any])` replaces
///   it, `removeValue()` deletes it (not its subcollections), `observe(.value)` listens to it (its `value` is the
///   fields, its `children` the fields by name);
/// - an odd number (`users/u1/items`) names a **collection**: `observe` listens to its documents (`value` is
///   `[documentID: fields]`, `children` the documents in ID order); and writing to it writes the field of that
///   name in the parent document (`…/i1/title` ← `"milk"` sets `title` of `users/u1/items/i1`), so
///   `childByAutoId().child("title").setValue(…)` works as in the tutorial.
///
/// Callbacks run on `Kura.Settings.dispatchQueue` (the main queue by default). See docs/swift-sdk.md.
public struct Database: Sendable {
    /// The client this database talks through.
    public let kura: Kura

    /// The default client's database (`Kura.configure(url:)`), as Firebase's `Database.database()`.
    public static func database() -> Database { Database(kura: .default) }

    /// The database of `kura`.
    public static func database(kura: Kura) -> Database { Database(kura: kura) }

    /// The root of the tree.
    public func reference() -> DatabaseReference { DatabaseReference(kura: kura, segments: []) }

    /// The node at `path` (`"users/u1/items"`).
    public func reference(withPath path: String) -> DatabaseReference { reference().child(path) }

    /// Observers by handle, for `removeObserver(withHandle:)` from any reference.
    static let observers = Locked<
        (next: UInt, registrations: [UInt: (path: String, registration: ListenerRegistration)])
    >(
        (1, [:]))
}

/// What `observe` returns, to remove the observer.
public typealias DatabaseHandle = UInt

/// The events `observe` can report.
public enum DataEventType: Sendable {
    /// The whole node, now and after every change.
    case value
    /// For a collection: each document, at first and when added.
    case childAdded
    /// For a collection: a document that changed.
    case childChanged
    /// For a collection: a document that was deleted.
    case childRemoved
}

/// A node of the tree (see `Database` for how paths map to documents).
public struct DatabaseReference: Sendable, Hashable, CustomStringConvertible {
    let kura: Kura
    let segments: [String]

    /// The last segment; `nil` for the root.
    public var key: String? { segments.last }
    /// The parent node; `nil` for the root.
    public var parent: DatabaseReference? {
        segments.isEmpty ? nil : DatabaseReference(kura: kura, segments: Array(segments.dropLast()))
    }
    /// The root node.
    public var root: DatabaseReference { DatabaseReference(kura: kura, segments: []) }
    public var description: String { "/" + segments.joined(separator: "/") }

    public static func == (lhs: DatabaseReference, rhs: DatabaseReference) -> Bool {
        lhs.kura === rhs.kura && lhs.segments == rhs.segments
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(segments) }

    /// The node at `path` below this one (`"items"`, or `"users/u1/items"`).
    public func child(_ path: String) -> DatabaseReference {
        DatabaseReference(kura: kura, segments: segments + ResourcePath.split(path))
    }

    /// A child with a new automatic ID (time-ordered, as Firebase's push IDs).
    public func childByAutoId() -> DatabaseReference {
        DatabaseReference(kura: kura, segments: segments + [AutoID.make()])
    }

    // MARK: Writing

    /// Writes `value` here: a document's fields (`[String: Any]`) at a document path; any value at a collection
    /// path, as the field of that name in the parent document. `nil` removes.
    public func setValue(_ value: Any?) async throws {
        try await write(Result { try KuraValue(bridging: value) })
    }

    /// `setValue(_:)` in the background; `block` runs on the callback queue when it is done.
    public func setValue(_ value: Any?, withCompletionBlock block: ((Error?, DatabaseReference) -> Void)? = nil) {
        let converted = Result { try KuraValue(bridging: value) }
        complete(block) { try await self.write(converted) }
    }

    /// Removes this node: deletes the document (not its subcollections) or the field.
    public func removeValue() async throws { try await write(.success(.null)) }

    /// `removeValue()` in the background; `block` runs on the callback queue when it is done.
    public func removeValue(completionBlock block: ((Error?, DatabaseReference) -> Void)? = nil) {
        complete(block) { try await self.write(.success(.null)) }
    }

    private func complete(
        _ block: ((Error?, DatabaseReference) -> Void)?, _ operation: @escaping @Sendable () async throws -> Void
    ) {
        let completion = block.map { block in { (result: Result<Void, any Error>) in block(result.error, self) } }
        runThenCall(on: kura.settings.dispatchQueue, completion, operation)
    }

    private func write(_ value: Result<KuraValue, any Error>) async throws {
        let value = try value.get()
        if segments.count >= 2, segments.count % 2 == 0 {
            let document = kura.document(segments.joined(separator: "/"))
            switch value {
            case .null: try await document.delete()
            case .map(let fields): try await document.setData(fields)
            default:
                throw KuraError.invalidArgument(
                    "\(self) is a document: set a [String: Any] of fields, or set the value on a child (a field)")
            }
        } else if segments.count >= 3 {
            let document = kura.document(segments.dropLast().joined(separator: "/"))
            let field = segments[segments.count - 1]
            try await document.setData([field: value.isNull ? FieldValue.delete() : value], merge: true)
        } else {
            throw KuraError(.invalidPath, "\(self) is a collection: write to a document below it")
        }
    }
}

extension Result {
    fileprivate var error: Failure? { if case .failure(let error) = self { error } else { nil } }
}
