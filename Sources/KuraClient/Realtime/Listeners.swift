import Foundation
internal import KuraModel

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
    ///
    /// A snapshot is delivered when documents change. With `includeMetadataChanges`, one is also delivered when
    /// only its metadata change: a pending write acknowledged (`hasPendingWrites` turns `false`), the stream lost
    /// (`isFromCache` turns `true`) or in sync again (`false`).
    public func snapshots(includeMetadataChanges: Bool = false) -> AsyncThrowingStream<QuerySnapshot, any Error> {
        let query = self.query
        return query.kura.listeners.stream(local: .query(query), includeMetadataChanges: includeMetadataChanges) {
            ["query": try query.json(limit: query.limit)]
        } snapshot: {
            query.snapshot($0)
        }
    }

    /// Calls `listener` with every snapshot (Firebase's callback style) on `Kura.Settings.dispatchQueue`, the
    /// main queue by default, as Firestore does; `remove()` the registration to stop.
    @discardableResult
    public func addSnapshotListener(
        _ listener: @escaping (QuerySnapshot?, (any Error)?) -> Void
    ) -> ListenerRegistration {
        ListenerRegistration(snapshots(), on: query.kura.settings.dispatchQueue, listener)
    }

    /// `addSnapshotListener(_:)`, with snapshots for metadata-only changes too when `includeMetadataChanges` (see
    /// `snapshots(includeMetadataChanges:)`).
    @discardableResult
    public func addSnapshotListener(
        includeMetadataChanges: Bool, listener: @escaping (QuerySnapshot?, (any Error)?) -> Void
    ) -> ListenerRegistration {
        ListenerRegistration(
            snapshots(includeMetadataChanges: includeMetadataChanges), on: query.kura.settings.dispatchQueue, listener)
    }
}

extension DocumentReference {
    /// The document now and after every change (`exists` turns `false` when it is deleted). See
    /// `Query.snapshots()`.
    public func snapshots(includeMetadataChanges: Bool = false) -> AsyncThrowingStream<DocumentSnapshot, any Error> {
        let reference = self
        return kura.listeners.stream(local: .document(path), includeMetadataChanges: includeMetadataChanges) {
            try ResourcePath.validate(reference.segments, document: true)
            return ["doc": .string(reference.path)]
        } snapshot: { update in
            DocumentSnapshot(reference: reference, document: update.documents.first, metadata: update.metadata)
        }
    }

    /// Calls `listener` with every snapshot of the document on `Kura.Settings.dispatchQueue` (the main queue by
    /// default); `remove()` the registration to stop.
    @discardableResult
    public func addSnapshotListener(
        _ listener: @escaping (DocumentSnapshot?, (any Error)?) -> Void
    ) -> ListenerRegistration {
        ListenerRegistration(snapshots(), on: kura.settings.dispatchQueue, listener)
    }

    /// `addSnapshotListener(_:)`, with snapshots for metadata-only changes too when `includeMetadataChanges` (see
    /// `Query.snapshots(includeMetadataChanges:)`).
    @discardableResult
    public func addSnapshotListener(
        includeMetadataChanges: Bool, listener: @escaping (DocumentSnapshot?, (any Error)?) -> Void
    ) -> ListenerRegistration {
        ListenerRegistration(
            snapshots(includeMetadataChanges: includeMetadataChanges), on: kura.settings.dispatchQueue, listener)
    }
}

/// A callback listener; `remove()` stops it.
public final class ListenerRegistration: Sendable {
    private let task: Task<Void, Never>
    private let removed = Locked(false)

    /// Calls `listener` on `queue` with each element of `stream`, then with the error that ends it, if any.
    init<Snapshot: Sendable>(
        _ stream: AsyncThrowingStream<Snapshot, any Error>, on queue: DispatchQueue,
        _ listener: @escaping (Snapshot?, (any Error)?) -> Void
    ) {
        let box = CallbackBox(value: listener)
        let removed = removed
        @Sendable func call(_ snapshot: Snapshot?, _ error: (any Error)?) {
            let error = CallbackBox(value: error)
            queue.async {
                guard !removed.current else { return }
                box.value(snapshot, error.value)
            }
        }
        task = Task {
            do {
                for try await snapshot in stream { call(snapshot, nil) }
            } catch {
                call(nil, error)
            }
        }
    }

    /// Stops the listener. No callback follows once it returns, when called on the callback queue (as from a
    /// callback or, with the default queue, from the main thread).
    public func remove() {
        removed.withLock { $0 = true }
        task.cancel()
    }
}

extension Query {
    /// A listener update as a snapshot.
    func snapshot(_ update: ListenerHub.Update) -> QuerySnapshot {
        func snapshot(_ document: RemoteDocument) -> QueryDocumentSnapshot {
            QueryDocumentSnapshot(
                reference: DocumentReference(kura: kura, segments: ResourcePath.split(document.path)),
                document: document,
                metadata: update.metadata.forDocument(pending: update.pendingPaths.contains(ByteKey(document.path))))
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

extension ListenerHub {
    /// One listener as a stream: `spec` (which may throw, ending the stream at once) names the target for the
    /// server, `local` for the offline cache; each update becomes an element through `snapshot`. The listener is
    /// removed when the stream ends.
    func stream<Snapshot: Sendable>(
        local: LocalTarget, includeMetadataChanges: Bool = false, spec: @escaping () throws -> DocumentData,
        snapshot: @escaping @Sendable (Update) -> Snapshot
    ) -> AsyncThrowingStream<Snapshot, any Error> {
        AsyncThrowingStream { continuation in
            let target: DocumentData
            do { target = try spec() } catch {
                continuation.finish(throwing: error)
                return
            }
            let id = add(
                target, local: local, includeMetadataChanges: includeMetadataChanges,
                deliver: { continuation.yield(snapshot($0)) },
                fail: { continuation.finish(throwing: $0) })
            continuation.onTermination = { [self] _ in remove(id) }
        }
    }
}
