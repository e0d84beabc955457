import KuraCore

/// One single-field index entry of a document (see `SQLiteSchema` for the scheme).
struct IndexEntry: Hashable {
    /// Canonical dotted field path.
    var field: String
    /// 0: the field's value; 1: one element of an array field.
    var kind: Int64
    /// `IndexKey` encoding.
    var value: [UInt8]
}

enum IndexEntries {
    /// Every entry for a document with `fields`: each field path at every object level, plus array elements.
    static func of(_ fields: JSONObject) -> Set<IndexEntry> {
        var entries: Set<IndexEntry> = []
        collect(fields, prefix: [], into: &entries)
        return entries
    }

    private static func collect(_ object: JSONObject, prefix: [String], into entries: inout Set<IndexEntry>) {
        for member in object.members {
            let segments = prefix + [member.key]
            let field = FieldPath(unchecked: segments).description
            entries.insert(IndexEntry(field: field, kind: 0, value: IndexKey.encode(member.value)))
            switch member.value {
            case .object(let inner):
                collect(inner, prefix: segments, into: &entries)
            case .array(let elements):
                for element in elements {
                    entries.insert(IndexEntry(field: field, kind: 1, value: IndexKey.encode(element)))
                }
            default: break
            }
        }
    }
}
