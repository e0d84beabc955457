import KuraCore
import KuraModel

/// One single-field index entry of a document (see `SQLiteSchema` for the scheme).
package struct IndexEntry: Hashable, Sendable {
    /// Canonical dotted field path.
    package var field: String
    /// 0: the field's value; 1: one element of an array field.
    package var kind: Int64
    /// `IndexKey` encoding.
    package var value: [UInt8]

    /// `kind` of an entry holding a field's whole value.
    package static let valueKind: Int64 = 0
    /// `kind` of an entry holding one element of an array field.
    package static let elementKind: Int64 = 1

    /// Field paths by bytes, as the `idx` table holds them: an update that renames `café` (NFC) to `café` (NFD)
    /// must delete the old entry and insert the new one.
    package static func == (lhs: IndexEntry, rhs: IndexEntry) -> Bool {
        lhs.kind == rhs.kind && lhs.value == rhs.value && lhs.field.bytesEqual(rhs.field)
    }

    package func hash(into hasher: inout Hasher) {
        field.hashBytes(into: &hasher)
        hasher.combine(kind)
        hasher.combine(value)
    }
}

/// The single-field index entries of documents, computed the same way by every engine.
package enum IndexEntries {
    /// Every entry for a document with `fields`, each once: each field path at every object level, plus the
    /// distinct elements of arrays. (An array, not a `Set`: entries of different field paths cannot collide, so
    /// only array elements need de-duplicating, and hashing every entry was a measurable share of a create.)
    package static func of(_ fields: JSONObject) -> [IndexEntry] {
        var entries: [IndexEntry] = []
        entries.reserveCapacity(fields.count + 4)
        collect(fields, prefix: "", into: &entries)
        return entries
    }

    /// `prefix`: the canonical dotted path of `object` (`FieldPath.description`), empty at the top; each field's
    /// path is built from it, without a `FieldPath` per field.
    private static func collect(_ object: JSONObject, prefix: String, into entries: inout [IndexEntry]) {
        for member in object.members {
            let segment = FieldPath.canonical(segment: member.key)
            let field = prefix.isEmpty ? segment : prefix + "." + segment
            entries.append(IndexEntry(field: field, kind: 0, value: IndexKey.encode(member.value)))
            switch member.value {
            case .object(let inner):
                collect(inner, prefix: field, into: &entries)
            case .array(let elements):
                var seen: Set<[UInt8]> = []
                for element in elements {
                    let value = IndexKey.encode(element)
                    if seen.insert(value).inserted { entries.append(IndexEntry(field: field, kind: 1, value: value)) }
                }
            default: break
            }
        }
    }
}
