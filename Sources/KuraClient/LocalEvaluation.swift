import Foundation

/// The server's semantics, run on the client for the offline cache: Firestore's value order, query matching and
/// sorting, and applying writes (with their transforms) to a document.
enum LocalEvaluation {
    // MARK: Values

    /// null < false < true < numbers < strings < arrays < maps, as the server orders values.
    static func rank(_ value: KuraValue) -> Int {
        switch value {
        case .null: 0
        case .bool: 1
        case .integer, .double: 2
        case .string: 3
        case .array: 4
        case .map: 5
        case .transform: 6
        }
    }

    /// -1, 0 or 1. Integers and doubles compare by value; strings by UTF-8 bytes; maps by sorted members.
    static func compare(_ lhs: KuraValue, _ rhs: KuraValue) -> Int {
        let (l, r) = (rank(lhs), rank(rhs))
        if l != r { return l < r ? -1 : 1 }
        switch (lhs, rhs) {
        case (.bool(let a), .bool(let b)): return a == b ? 0 : (a ? 1 : -1)
        case (.integer(let a), .integer(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.integer, _), (.double, _):
            if case .integer(let a) = lhs, case .integer(let b) = rhs { return a == b ? 0 : (a < b ? -1 : 1) }
            return compareNumbers(lhs, rhs)
        case (.string(let a), .string(let b)):
            if a.bytesEqual(b) { return 0 }
            return a.bytesPrecede(b) ? -1 : 1
        case (.array(let a), .array(let b)):
            for (x, y) in zip(a, b) {
                let order = compare(x, y)
                if order != 0 { return order }
            }
            return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
        case (.map(let a), .map(let b)):
            let (ak, bk) = (
                a.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) },
                b.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            )
            for (x, y) in zip(ak, bk) {
                if !x.bytesEqual(y) { return x.bytesPrecede(y) ? -1 : 1 }
                let order = compare(a[x]!, b[y]!)
                if order != 0 { return order }
            }
            return ak.count == bk.count ? 0 : (ak.count < bk.count ? -1 : 1)
        default: return 0
        }
    }

    /// Numbers of mixed kinds: exact for integers below 2^53 and for doubles, close enough beyond.
    private static func compareNumbers(_ lhs: KuraValue, _ rhs: KuraValue) -> Int {
        let (a, b) = (lhs.doubleValue ?? 0, rhs.doubleValue ?? 0)
        if a.isNaN || b.isNaN { return a.isNaN == b.isNaN ? 0 : (a.isNaN ? -1 : 1) }
        return a == b ? 0 : (a < b ? -1 : 1)
    }

    static func equal(_ lhs: KuraValue, _ rhs: KuraValue) -> Bool { compare(lhs, rhs) == 0 }

    // MARK: Queries

    /// Whether `path` lies in the query's collection (or collection group).
    static func inSource(_ query: Query, _ path: String) -> Bool {
        let segments = ResourcePath.split(path)
        switch query.source {
        case .collection(let collection): return Array(segments.dropLast()).bytesEqual(collection)
        case .collectionGroup(let id): return segments.count >= 2 && segments[segments.count - 2].bytesEqual(id)
        }
    }

    /// Whether `document` passes the query's filters, has every ordered field, and lies within its cursors.
    static func matches(_ query: Query, _ document: RemoteDocument) -> Bool {
        guard inSource(query, document.path) else { return false }
        for filter in query.filters {
            let value = document.value(at: filter.field)
            guard matches(value, filter.op, filter.value) else { return false }
        }
        let orders = query.effectiveOrders
        for order in orders where document.value(at: order.field) == nil { return false }
        if let start = query.start {
            let order = position(document, start.values, orders)
            if order < 0 || (order == 0 && !start.inclusive) { return false }
        }
        if let end = query.end {
            let order = position(document, end.values, orders)
            if order > 0 || (order == 0 && !end.inclusive) { return false }
        }
        return true
    }

    private static func matches(_ value: KuraValue?, _ op: String, _ operand: KuraValue) -> Bool {
        switch op {
        case "==": return value.map { equal($0, operand) } ?? false
        case "!=": return value.map { !equal($0, operand) } ?? false
        case "<", "<=", ">", ">=":
            guard let value, rank(value) == rank(operand) else { return false }
            let order = compare(value, operand)
            switch op {
            case "<": return order < 0
            case "<=": return order <= 0
            case ">": return order > 0
            default: return order >= 0
            }
        case "in": return value.map { v in (operand.arrayValue ?? []).contains { equal(v, $0) } } ?? false
        case "not-in": return value.map { v in !(operand.arrayValue ?? []).contains { equal(v, $0) } } ?? false
        case "array-contains":
            return value?.arrayValue?.contains { equal($0, operand) } ?? false
        case "array-contains-any":
            let wanted = operand.arrayValue ?? []
            return value?.arrayValue?.contains { element in wanted.contains { equal(element, $0) } } ?? false
        default: return false
        }
    }

    /// Where `document` lies relative to a cursor (a prefix of the sort keys): -1 before, 0 at, 1 after.
    private static func position(_ document: RemoteDocument, _ cursor: [KuraValue], _ orders: [Query.Order]) -> Int {
        for (value, order) in zip(cursor, orders) {
            let result = compare(document.value(at: order.field) ?? .null, value)
            if result != 0 { return order.descending ? -result : result }
        }
        return 0
    }

    /// The query run over `documents`: matching ones, sorted, limited.
    static func run(_ query: Query, over documents: some Sequence<RemoteDocument>) -> [RemoteDocument] {
        let orders = query.effectiveOrders
        var result = documents.filter { matches(query, $0) }
        result.sort { a, b in
            for order in orders {
                let lhs = order.field == "id" ? KuraValue.string(a.id) : (a.value(at: order.field) ?? .null)
                let rhs = order.field == "id" ? KuraValue.string(b.id) : (b.value(at: order.field) ?? .null)
                let result = compare(lhs, rhs)
                if result != 0 { return order.descending ? result > 0 : result < 0 }
            }
            return a.path.bytesPrecede(b.path)
        }
        if let limit = query.limit, result.count > limit { result.removeLast(result.count - limit) }
        return result
    }

    // MARK: Writes

    /// `write` applied to `document` (`nil`: known not to exist) at `time`; `nil` when the result does not exist.
    /// An update of a missing document leaves it missing (the server would refuse it).
    static func apply(_ write: Write, to document: RemoteDocument?, time: String) -> RemoteDocument? {
        var data: DocumentData
        switch write.operation {
        case .delete: return nil
        case .create(let fields): data = fields
        case .set(let fields, let merge): data = merge ? deepMerge(document?.data ?? [:], fields) : fields
        case .update(let fields):
            guard let document else { return nil }
            data = document.data
            for (path, value) in fields { set(&data, FieldPathText.split(path)[...], value) }
        }
        for (field, transform) in write.transforms {
            let names = FieldPathText.split(field)
            let current = RemoteDocument.value(in: data, at: names)
            set(&data, names[...], transformed(current, transform, time: time))
        }
        return RemoteDocument(
            path: write.path, data: data, createTime: document?.createTime ?? time, updateTime: time,
            version: (document?.version ?? 0) + 1)
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
    private static func set(_ data: inout DocumentData, _ names: ArraySlice<String>, _ value: KuraValue?) {
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
