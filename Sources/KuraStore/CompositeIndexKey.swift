import KuraCore
import KuraModel

/// The byte keys of composite index entries: `memcmp` order is the order of the queries the index serves.
///
/// A key is the concatenation of one component per indexed field, then the document ID, then (for
/// collection-group indexes) the collection path:
/// - a field component is `IndexKey.encode(value)` (for `CONTAINS`, of one array element), every byte inverted
///   (`~b`) for a descending field;
/// - the ID is `IndexKey.appendString(id)`, the collection path its segments the same way plus `0x00`, both
///   inverted when the ID is descending.
///
/// Every component is prefix-free (no encoding is a proper prefix of another), so comparing two concatenations
/// compares their components in turn, and inverting a component's bytes exactly reverses its order.
public enum CompositeIndexKey {
    /// The entry keys of a document with `fields` (none when a field is missing, or the `CONTAINS` field is not
    /// an array or empty).
    public static func keys(
        _ index: CompositeIndex, fields: JSONObject, id: String, collection: CollectionPath
    ) -> [[UInt8]] {
        var heads: [[UInt8]] = [[]]
        for field in index.fields {
            guard let value = fields.value(at: field.path) else { return [] }
            switch field.mode {
            case .ascending, .descending:
                var component = IndexKey.encode(value)
                if field.mode == .descending { invert(&component) }
                for position in heads.indices { heads[position] += component }
            case .contains:
                guard case .array(let elements) = value else { return [] }
                var seen: Set<[UInt8]> = []
                var expanded: [[UInt8]] = []
                for element in elements {
                    let component = IndexKey.encode(element)
                    guard seen.insert(component).inserted else { continue }
                    for head in heads { expanded.append(head + component) }
                }
                heads = expanded
                if heads.isEmpty { return [] }
            }
        }
        let tail = nameComponent(index, id: id, collection: collection)
        return heads.map { $0 + tail }
    }

    /// The ID component (and, for collection-group indexes, the collection path), in the ID's direction.
    static func nameComponent(_ index: CompositeIndex, id: String, collection: CollectionPath?) -> [UInt8] {
        var tail = idComponent(id, descending: false)
        if index.scope == .collectionGroup, let collection { tail += collectionComponent(collection.segments) }
        if index.nameDescending { invert(&tail) }
        return tail
    }

    /// The ascending encoding of a document ID.
    static func idComponent(_ id: String, descending: Bool) -> [UInt8] {
        var out: [UInt8] = []
        IndexKey.appendString(id, to: &out)
        if descending { invert(&out) }
        return out
    }

    /// The ascending encoding of a collection path: segment-wise byte order, fewer segments first.
    static func collectionComponent(_ segments: [String]) -> [UInt8] {
        var out: [UInt8] = []
        for segment in segments { IndexKey.appendString(segment, to: &out) }
        out.append(0)
        return out
    }

    /// A field component: the value's encoding, inverted for descending.
    static func component(_ value: JSONValue, descending: Bool) -> [UInt8] {
        var out = IndexKey.encode(value)
        if descending { invert(&out) }
        return out
    }

    static func invert(_ bytes: inout [UInt8]) {
        for position in bytes.indices { bytes[position] = ~bytes[position] }
    }

    /// The smallest byte string greater than every string starting with `prefix` (`nil`: none, all `0xFF`).
    static func successor(_ prefix: [UInt8]) -> [UInt8]? {
        var out = prefix
        while let last = out.last {
            if last != 0xFF {
                out[out.count - 1] = last + 1
                return out
            }
            out.removeLast()
        }
        return nil
    }
}
