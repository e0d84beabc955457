import KuraModel

/// SQL conditions of a query plan that mean the same in every engine's schema (`docs` as `d`, encoded index
/// values compared as bytes). The engine binds each value and passes back its placeholder (`param`), so the
/// dialect (`?N` or `$N`, value types) stays in the engine; placeholders are requested in the order they appear.
package enum QueryConditions {
    /// The query's source on a cid `column`: the collection's cid, or one of the collection group's. `name` binds
    /// a collection path or ID.
    package static func source(_ source: StructuredQuery.Source, column: String, name: (String) -> String) -> String {
        switch source {
        case .collection(let path): "\(column) = (SELECT cid FROM collections WHERE path = \(name(path.description)))"
        case .collectionGroup(let id): "\(column) IN (SELECT cid FROM collections WHERE group_id = \(name(id)))"
        }
    }

    /// The single-field index rows (alias `i0`) that drive the walk (`QueryDriver`): the driver field's whole-value
    /// rows, or the rows of the driver filter's value (element rows for `array-contains`); `nil` when `docs` drives.
    /// `name` binds a field path, `key` an encoded value (`encode`, the engine's stored form).
    package static func driver(
        _ query: NormalizedQuery, field: FieldPath?, filter: Int?, name: (String) -> String,
        encode: (JSONValue) -> [UInt8], key: ([UInt8]) -> String
    ) -> String? {
        if let field { return "i0.field = \(name(field.description)) AND i0.kind = \(IndexEntry.valueKind)" }
        guard let filter, case .field(let path) = query.filters[filter].field else { return nil }
        let value = query.filters[filter]
        let kind = value.op == .arrayContains ? IndexEntry.elementKind : IndexEntry.valueKind
        return "i0.field = \(name(path.description)) AND i0.kind = \(kind) AND i0.value = " + key(encode(value.value))
    }

    /// A filter on an encoded value column (`IndexKey` order). Range operators only match the operand's own type.
    /// `encode` is the engine's stored form of a value's key, `param` binds a key.
    package static func value(
        _ column: String, _ filter: Filter, encode: (JSONValue) -> [UInt8], param: ([UInt8]) -> String
    ) -> String {
        let operand = encode(filter.value)
        switch filter.op {
        case .equal, .arrayContains: return "\(column) = \(param(operand))"
        case .notEqual: return "\(column) <> \(param(operand))"
        case .lessThan, .lessThanOrEqual:
            let op = filter.op == .lessThan ? "<" : "<="
            return "\(column) \(op) \(param(operand)) AND \(column) >= "
                + param(IndexKey.typeLowerBound(filter.value))
        case .greaterThan, .greaterThanOrEqual:
            let op = filter.op == .greaterThan ? ">" : ">="
            return "\(column) \(op) \(param(operand)) AND \(column) < "
                + param(IndexKey.typeUpperBound(filter.value))
        case .in, .arrayContainsAny, .notIn:
            let list = (filter.value.arrayValue ?? []).map { param(encode($0)) }
            return "\(column) \(filter.op == .notIn ? "NOT IN" : "IN") (\(list.joined(separator: ", ")))"
        }
    }

    /// A filter on a document's ID or times (`d.id`, `d.ctime`, `d.utime`); `param` binds a metadata value.
    package static func metadata(_ filter: Filter, param: (JSONValue) -> String) -> String {
        let column =
            switch filter.field {
            case .createTime: "d.ctime"
            case .updateTime: "d.utime"
            default: "d.id"
            }
        switch filter.op {
        case .in, .notIn:
            let list = (filter.value.arrayValue ?? []).map { param($0) }
            return "\(column) \(filter.op == .notIn ? "NOT IN" : "IN") (\(list.joined(separator: ", ")))"
        default:
            let op = filter.op == .equal ? "=" : filter.op == .notEqual ? "<>" : filter.op.rawValue
            return "\(column) \(op) \(param(filter.value))"
        }
    }
}
