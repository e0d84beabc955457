import Foundation
internal import KuraModel

/// The server's semantics, run on the client for the offline cache. Applying writes (with their transforms), the
/// order of values and which documents a query matches all come from the model the server runs (KuraModel's
/// `WriteApplier`, `ValueOrdering`, `QueryMatcher`; `LocalEvaluation+Model.swift`); what is the SDK's own here is
/// the bookkeeping of server timestamps that are still estimates.
enum LocalEvaluation {
    // MARK: Queries

    /// Whether `path` lies in the query's collection (or collection group).
    static func inSource(_ query: Query, _ path: String) -> Bool {
        let segments = ResourcePath.split(path)
        switch query.source {
        case .collection(let collection): return Array(segments.dropLast()).bytesEqual(collection)
        case .collectionGroup(let id): return segments.count >= 2 && segments[segments.count - 2].bytesEqual(id)
        }
    }

    // MARK: Writes

    /// `write` applied to `document` (`nil`: known not to exist) at `time`; `nil` when the result does not exist.
    /// The write is applied as the server's rules preview it: its precondition is not checked, a create replaces
    /// what is there, and an update of a missing document leaves it missing (the server would refuse it). A write
    /// the server would refuse whatever the document (overlapping field paths, a non-numeric increment) leaves the
    /// document as it is.
    static func apply(_ write: Write, to document: RemoteDocument?, time: String) -> RemoteDocument? {
        if case .delete = write.operation { return nil }
        if case .update = write.operation, document == nil { return nil }
        let fields: JSONObject?
        do {
            // As the server's rules preview a write (`DataAccess.preview`): the outcome it asks for.
            var preview = try write.model()
            preview.precondition = nil
            if case .create(let data) = preview.operation { preview.operation = .set(data, merge: false) }
            let micros = KuraModel.RFC3339.parse(time) ?? 0
            fields = try WriteApplier.apply(preview, to: document?.modelDocument, commitTime: micros)
        } catch {
            return document
        }
        guard let fields, let data = try? KuraValue(model: .object(fields)).mapValue else { return document }
        var result = RemoteDocument(
            path: write.path, data: data, createTime: document?.createTime ?? time, updateTime: time,
            version: (document?.version ?? 0) + 1)
        result.pendingServerTimestamps = pendingServerTimestamps(after: write, on: document)
        return result
    }

    /// The fields of the result of `write` on `document` whose server timestamps are still local estimates, each
    /// with the value before the first pending write (for `ServerTimestampBehavior.previous`).
    private static func pendingServerTimestamps(after write: Write, on document: RemoteDocument?) -> [String:
        KuraValue?]
    {
        // Server timestamps still pending from earlier writes, unless this write replaces their fields.
        var pending = document?.pendingServerTimestamps ?? [:]
        switch write.operation {
        case .delete, .create, .set(_, merge: false): pending = [:]
        case .set(let fields, merge: true):
            pending = pending.filter { field, _ in
                RemoteDocument.value(in: fields, at: RemoteDocument.fieldNames(field)) == nil
            }
        case .update(let fields): pending = pending.filter { field, _ in fields[field] == nil }
        }
        for (field, transform) in write.transforms {
            if case .serverTimestamp = transform, !write.acknowledged {
                if pending[field] == nil {
                    pending[field] = .some(
                        document.flatMap { RemoteDocument.value(in: $0.data, at: RemoteDocument.fieldNames(field)) })
                }
            } else {
                pending[field] = nil
            }
        }
        return pending
    }

    /// `data` with the value at a dotted field path set (the model's `JSONObject.setValue`: maps are made on the
    /// way); a path that does not parse leaves `data` as it is.
    static func set(_ data: inout DocumentData, _ field: String, _ value: KuraValue) {
        guard let path = try? FieldPath(field), case .object(var object) = KuraValue.map(data).model else { return }
        object.setValue(value.model, at: path)
        if let updated = try? KuraValue(model: .object(object)).mapValue { data = updated }
    }
}
