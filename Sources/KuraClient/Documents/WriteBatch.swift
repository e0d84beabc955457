import Foundation
internal import KuraModel

/// Writes that are applied together or not at all (`POST /api/commit`, up to 500 writes):
/// ```swift
/// let batch = kura.batch()
/// batch.setData(["done": true], forDocument: a)
/// batch.deleteDocument(b)
/// try await batch.commit()
/// ```
public final class WriteBatch: Sendable {
    let kura: Kura
    private let state = Locked<(writes: [Write], error: KuraError?, committed: Bool)>(([], nil, false))

    init(kura: Kura) { self.kura = kura }

    /// Creates or replaces (with `merge`, deep-merges into) `document`.
    @discardableResult
    public func setData(_ data: DocumentData, forDocument document: DocumentReference, merge: Bool = false)
        -> WriteBatch
    {
        add { try Write.set(document.path, data, merge: merge) }
    }

    /// Creates or replaces `document` with an `Encodable` value.
    @discardableResult
    public func setData<T: Encodable>(from value: T, forDocument document: DocumentReference, merge: Bool = false)
        -> WriteBatch
    {
        add { try Write.set(document.path, try DocumentCoding.encode(value), merge: merge) }
    }

    /// Sets fields (dotted paths) of `document`, which must exist when the batch commits.
    @discardableResult
    public func updateData(_ fields: DocumentData, forDocument document: DocumentReference) -> WriteBatch {
        add { try Write.update(document.path, fields) }
    }

    /// Deletes `document`.
    @discardableResult
    public func deleteDocument(_ document: DocumentReference) -> WriteBatch { add { Write.delete(document.path) } }

    /// Adds a set of `data` (already converted from `[String: Any]`, or the conversion's error).
    func setData(data: Result<DocumentData, any Error>, forDocument document: DocumentReference, merge: Bool)
        -> WriteBatch
    {
        add { try Write.set(document.path, try data.get(), merge: merge) }
    }

    /// Adds an update of `fields` (already converted from `[String: Any]`, or the conversion's error).
    func updateData(fields: Result<DocumentData, any Error>, forDocument document: DocumentReference) -> WriteBatch {
        add { try Write.update(document.path, try fields.get()) }
    }

    /// Applies every write atomically. A mistake made while building the batch (bad data) is thrown here.
    public func commit() async throws {
        let writes = try state.withLock { state -> [Write] in
            guard !state.committed else { throw KuraError.invalidArgument("this batch was already committed") }
            if let error = state.error { throw error }
            state.committed = true
            return state.writes
        }
        try await kura.commit(writes)
    }

    private func add(_ make: () throws -> Write) -> WriteBatch {
        state.withLock { state in
            do {
                state.writes.append(try make())
            } catch {
                state.error = state.error ?? (error as? KuraError) ?? KuraError.invalidArgument("\(error)")
            }
        }
        return self
    }
}

extension Kura {
    /// A new, empty write batch.
    public func batch() -> WriteBatch { WriteBatch(kura: self) }
}
