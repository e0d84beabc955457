import Foundation
internal import KuraModel

extension DatabaseReference {
    /// Calls `block` on the callback queue for each `eventType` event here: `.value` with the whole node now and
    /// after every change; for a collection, `.childAdded` (each document at first, then new ones),
    /// `.childChanged`, `.childRemoved`. Keep the handle for `removeObserver(withHandle:)`.
    @discardableResult
    public func observe(_ eventType: DataEventType, with block: @escaping (DataSnapshot) -> Void) -> DatabaseHandle {
        observe(eventType, with: block, withCancel: nil)
    }

    /// `observe(_:with:)`; `cancelBlock` gets the error that ends the observer (`.permissionDenied` when the rules
    /// refuse it, `.unauthenticated` when the session ends).
    @discardableResult
    public func observe(
        _ eventType: DataEventType, with block: @escaping (DataSnapshot) -> Void,
        withCancel cancelBlock: ((Error) -> Void)?
    ) -> DatabaseHandle {
        let reference = self
        let listener: ([DataSnapshot]?, (any Error)?) -> Void = { snapshots, error in
            if let error { cancelBlock?(error) }
            for snapshot in snapshots ?? [] { block(snapshot) }
        }
        let registration: ListenerRegistration
        if segments.count >= 2, segments.count % 2 == 0 {
            let document = kura.document(segments.joined(separator: "/"))
            registration = document.addSnapshotListener { snapshot, error in
                guard let snapshot else { return listener(nil, error) }
                listener(eventType == .value ? [DataSnapshot(reference, fields: snapshot.fields)] : [], nil)
            }
        } else if segments.count % 2 == 1 {
            let collection = kura.collection(segments.joined(separator: "/"))
            registration = collection.addSnapshotListener { snapshot, error in
                guard let snapshot else { return listener(nil, error) }
                listener(reference.events(eventType, snapshot), nil)
            }
        } else {
            let error = KuraError(.invalidPath, "observe a collection or a document, not the root")
            let stream = AsyncThrowingStream<QuerySnapshot, any Error> { $0.finish(throwing: error) }
            registration = ListenerRegistration(stream, on: kura.settings.dispatchQueue) { listener(nil, $1) }
        }
        return Database.observers.withLock { state in
            let handle = state.next
            state.next += 1
            state.registrations[handle] = (description, registration)
            return handle
        }
    }

    /// The events of `type` in a collection snapshot.
    private func events(_ type: DataEventType, _ snapshot: QuerySnapshot) -> [DataSnapshot] {
        func child(_ document: QueryDocumentSnapshot) -> DataSnapshot {
            DataSnapshot(self.child(document.documentID), fields: document.fields)
        }
        switch type {
        case .value:
            let children = snapshot.documents.map(child)
            return [
                DataSnapshot(
                    self,
                    value: children.isEmpty
                        ? nil
                        : snapshot.documents.reduce(into: [:]) {
                            $0[$1.documentID] = $1.data() as Any
                        }, children: children)
            ]
        case .childAdded: return snapshot.documentChanges.filter { $0.type == .added }.map { child($0.document) }
        case .childChanged: return snapshot.documentChanges.filter { $0.type == .modified }.map { child($0.document) }
        case .childRemoved: return snapshot.documentChanges.filter { $0.type == .removed }.map { child($0.document) }
        }
    }

    /// Reads the node once: the first `.value` event, then the observer is removed.
    public func observeSingleEvent(of eventType: DataEventType, with block: @escaping (DataSnapshot) -> Void) {
        let handle = Locked<DatabaseHandle?>(nil)
        let fired = Locked(false)
        let box = CallbackBox(value: block)
        let registered = observe(eventType) { [self] snapshot in
            let first = fired.withLock { fired -> Bool in
                defer { fired = true }
                return !fired
            }
            guard first else { return }
            if let handle = handle.current { removeObserver(withHandle: handle) }
            box.value(snapshot)
        }
        handle.withLock { $0 = registered }
        if fired.current { removeObserver(withHandle: registered) }
    }

    /// Removes the observer `handle` (from any reference).
    public func removeObserver(withHandle handle: DatabaseHandle) {
        Database.observers.withLock { $0.registrations.removeValue(forKey: handle) }?.registration.remove()
    }

    /// Removes every observer of this node.
    public func removeAllObservers() {
        let path = description
        let removed = Database.observers.withLock { state in
            let handles = state.registrations.filter { $0.value.path == path }.map(\.key)
            return handles.compactMap { state.registrations.removeValue(forKey: $0)?.registration }
        }
        for registration in removed { registration.remove() }
    }
}

/// A node's content at one moment, as Firebase's `DataSnapshot`: `value` is `[String: Any]` for a document (its
/// fields) and for a collection (`[documentID: fields]`), `NSNull` when there is nothing; `children` lists the
/// documents of a collection (in ID order) or the fields of a document (by name), each a `DataSnapshot`.
public final class DataSnapshot {
    /// Where the data is.
    public let ref: DatabaseReference
    /// The value: `[String: Any]`, a field's value, or `NSNull` when there is nothing here.
    public let value: Any?
    private let childSnapshots: [DataSnapshot]

    init(_ ref: DatabaseReference, value: Any?, children: [DataSnapshot]) {
        self.ref = ref
        self.value = value ?? NSNull()
        childSnapshots = children
    }

    /// A document's snapshot (`fields` is `nil` when it does not exist).
    convenience init(_ ref: DatabaseReference, fields: DocumentData?) {
        let children = (fields ?? [:]).sorted { $0.key < $1.key }.map {
            DataSnapshot(ref.child($0.key), value: $0.value.bridged, children: [])
        }
        self.init(ref, value: fields?.bridged, children: children)
    }

    /// The last segment of the path.
    public var key: String { ref.key ?? "" }
    /// The child snapshots, as `Any` (cast each with `as! DataSnapshot`, as in Firebase code).
    public var children: [Any] { childSnapshots }
    /// How many children there are.
    public var childrenCount: UInt { UInt(childSnapshots.count) }
    /// Whether there is data here.
    public func exists() -> Bool { !(value is NSNull) }
    /// Whether there is at least one child.
    public func hasChildren() -> Bool { !childSnapshots.isEmpty }
    /// Whether the direct child `path` exists.
    public func hasChild(_ path: String) -> Bool { childSnapshots.contains { $0.key == path } }
    /// The snapshot of the direct child `path` (empty when there is none).
    public func childSnapshot(forPath path: String) -> DataSnapshot {
        childSnapshots.first { $0.key == path } ?? DataSnapshot(ref.child(path), value: nil, children: [])
    }
}
