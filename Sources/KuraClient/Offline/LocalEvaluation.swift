import Foundation
internal import KuraModel

/// The server's semantics, run on the client for the offline cache: applying writes (with their transforms) to a
/// document here; the order of values and which documents a query matches come from the model the server runs
/// (KuraModel, `LocalEvaluation+Model.swift`).
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
    /// An update of a missing document leaves it missing (the server would refuse it).
    static func apply(_ write: Write, to document: RemoteDocument?, time: String) -> RemoteDocument? {
        var data: DocumentData
        // Server timestamps still pending from earlier writes, unless this write replaces their fields.
        var pending = document?.pendingServerTimestamps ?? [:]
        switch write.operation {
        case .delete: return nil
        case .create(let fields):
            data = fields
            pending = [:]
        case .set(let fields, let merge):
            data = merge ? deepMerge(document?.data ?? [:], fields) : fields
            if merge {
                pending = pending.filter { field, _ in
                    RemoteDocument.value(in: fields, at: FieldPathText.split(field)) == nil
                }
            } else {
                pending = [:]
            }
        case .update(let fields):
            guard let document else { return nil }
            data = document.data
            for (path, value) in fields { set(&data, FieldPathText.split(path)[...], value) }
            pending = pending.filter { field, _ in fields[field] == nil }
        }
        for (field, transform) in write.transforms {
            let names = FieldPathText.split(field)
            let current = RemoteDocument.value(in: data, at: names)
            if case .serverTimestamp = transform, !write.acknowledged {
                // The value before the first pending write, for `.previous`.
                if pending[field] == nil {
                    pending[field] = .some(document.flatMap { RemoteDocument.value(in: $0.data, at: names) })
                }
            } else {
                pending[field] = nil
            }
            set(&data, names[...], transformed(current, transform, time: time))
        }
        var result = RemoteDocument(
            path: write.path, data: data, createTime: document?.createTime ?? time, updateTime: time,
            version: (document?.version ?? 0) + 1)
        result.pendingServerTimestamps = pending
        return result
    }

    private static func deepMerge(_ base: DocumentData, _ changes: DocumentData) -> DocumentData {
        var out = base
        for (key, value) in changes {
            if case .map(let inner) = value, case .map(let existing)? = out[key] {
                out[key] = .map(deepMerge(existing, inner))
            } else {
                out[key] = value
            }
        }
        return out
    }

    /// Sets (or with `nil`, removes) the value at a field path, creating maps on the way.
    static func set(_ data: inout DocumentData, _ names: ArraySlice<String>, _ value: KuraValue?) {
        guard let first = names.first else { return }
        if names.count == 1 {
            data[first] = value
            return
        }
        var inner = data[first]?.mapValue ?? [:]
        set(&inner, names.dropFirst(), value)
        data[first] = .map(inner)
    }

    private static func transformed(_ current: KuraValue?, _ transform: FieldTransform, time: String) -> KuraValue? {
        switch transform {
        case .serverTimestamp: return .string(time)
        case .delete: return nil
        case .increment(let operand):
            guard let current, rank(current) == 2 else { return operand }
            if case .integer(let a) = current, case .integer(let b) = operand {
                let (sum, overflow) = a.addingReportingOverflow(b)
                return .integer(overflow ? (b > 0 ? .max : .min) : sum)
            }
            return .double((current.doubleValue ?? 0) + (operand.doubleValue ?? 0))
        case .maximum(let operand):
            guard let current, rank(current) == 2 else { return operand }
            return compare(current, operand) >= 0 ? current : operand
        case .minimum(let operand):
            guard let current, rank(current) == 2 else { return operand }
            return compare(current, operand) <= 0 ? current : operand
        case .arrayUnion(let elements):
            var array = current?.arrayValue ?? []
            for element in elements where !array.contains(where: { equal($0, element) }) { array.append(element) }
            return .array(array)
        case .arrayRemove(let elements):
            return .array((current?.arrayValue ?? []).filter { value in !elements.contains { equal($0, value) } })
        }
    }
}
