import Foundation

extension Queryable {
    /// The query's results now and after every change, as a stream of snapshots: the first holds every document
    /// (all `.added`), each later one what changed (`documentChanges`). All listeners of a client share one
    /// Server-Sent Events connection, which resumes after a network drop without losing or repeating a change.
    /// The listener stops when the consuming task ends or is cancelled; it fails with `.permissionDenied` when the
    /// rules refuse the query, `.unauthenticated` when the session ends.
    ///
    /// ```swift
    /// for try await snapshot in todos.order(by: "createdAt").snapshots() {
    ///     for change in snapshot.documentChanges { print(change.type, change.document.documentID) }
    /// }
    /// ```
    public func snapshots() -> AsyncThrowingStream<QuerySnapshot, any Error> {
        let query = self.query
        return AsyncThrowingStream { continuation in
            let body: KuraValue
            do {
                body = try query.json(limit: query.limit)
            } catch {
                continuation.finish(throwing: error)
                return
            }
            let hub = query.kura.listeners
            let id = hub.add(
                ["query": body], local: .query(query),
                deliver: { update in continuation.yield(query.snapshot(update)) },
                fail: { continuation.finish(throwing: $0) })
            continuation.onTermination = { _ in hub.remove(id) }
        }
    }

    /// Calls `listener` with every snapshot (Firebase's callback style); `remove()` the registration to stop.
    @discardableResult
    public func addSnapshotListener(
        _ listener: @escaping @Sendable (QuerySnapshot?, (any Error)?) -> Void
    ) -> ListenerRegistration {
        let stream = snapshots()
        return ListenerRegistration(
            Task {
                do {
                    for try await snapshot in stream { listener(snapshot, nil) }
                } catch {
                    listener(nil, error)
                }
            })
    }
}

extension DocumentReference {
    /// The document now and after every change (`exists` turns `false` when it is deleted). See
    /// `Query.snapshots()`.
    public func snapshots() -> AsyncThrowingStream<DocumentSnapshot, any Error> {
        let reference = self
        return AsyncThrowingStream { continuation in
            do {
                try ResourcePath.validate(segments, document: true)
            } catch {
                continuation.finish(throwing: error)
                return
            }
            let hub = kura.listeners
            let id = hub.add(
                ["doc": .string(path)], local: .document(path),
                deliver: { update in
                    continuation.yield(
                        DocumentSnapshot(
                            reference: reference, document: update.documents.first, metadata: update.metadata))
                },
                fail: { continuation.finish(throwing: $0) })
            continuation.onTermination = { _ in hub.remove(id) }
        }
    }

    /// Calls `listener` with every snapshot of the document; `remove()` the registration to stop.
    @discardableResult
    public func addSnapshotListener(
        _ listener: @escaping @Sendable (DocumentSnapshot?, (any Error)?) -> Void
    ) -> ListenerRegistration {
        let stream = snapshots()
        return ListenerRegistration(
            Task {
                do {
                    for try await snapshot in stream { listener(snapshot, nil) }
                } catch {
                    listener(nil, error)
                }
            })
    }
}

/// A callback listener; `remove()` stops it.
public final class ListenerRegistration: Sendable {
    private let task: Task<Void, Never>

    init(_ task: Task<Void, Never>) { self.task = task }

    /// Stops the listener; no callback follows.
    public func remove() { task.cancel() }
}

extension Query {
    /// A listener update as a snapshot.
    func snapshot(_ update: ListenerHub.Update) -> QuerySnapshot {
        func snapshot(_ document: RemoteDocument) -> QueryDocumentSnapshot {
            QueryDocumentSnapshot(
                reference: DocumentReference(kura: kura, segments: ResourcePath.split(document.path)),
                document: document, metadata: update.metadata)
        }
        return QuerySnapshot(
            query: self, documents: update.documents.map(snapshot),
            documentChanges: update.changes.map {
                DocumentChange(
                    type: $0.kind, document: snapshot($0.document), oldIndex: $0.oldIndex, newIndex: $0.newIndex)
            },
            metadata: update.metadata)
    }
}
