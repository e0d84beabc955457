import KuraCore
import KuraModel
import KuraPostgres
import KuraStore

/// Composite index entries, kept by every write of a document inside its batch transaction (so an acknowledged
/// write is in every index it belongs to, on whichever node it was written).
extension PostgresWriteTransaction {
    /// Brings the document at `path`'s composite entries from `old` fields to `new` ones (`nil`: no document),
    /// for every index of its collection ID that is being built or ready.
    func updateCompositeEntries(_ path: DocumentPath, cid: Int64, old: JSONObject?, new: JSONObject?) throws {
        let collection = path.collection
        let indexes = composites.maintained(for: collection.collectionID)
        if indexes.isEmpty { return }
        for (iid, index) in indexes {
            let scope = index.scope == .collection ? cid : 0
            let before = old.map { CompositeIndexKey.keys(index, fields: $0, id: path.id, collection: collection) }
            let after = new.map { CompositeIndexKey.keys(index, fields: $0, id: path.id, collection: collection) }
            if before == after { continue }
            let removed = Set(before ?? []).subtracting(after ?? [])
            let added = Set(after ?? []).subtracting(before ?? [])
            for key in removed {
                modifications += 1
                try connection.query(
                    "DELETE FROM cidx WHERE iid = $1 AND scope = $2 AND key = $3",
                    [.int(iid), .int(scope), .bytes(key)],
                    prepared: true)
            }
            for key in added {
                modifications += 1
                try Self.insertCompositeEntry(connection, iid: iid, scope: scope, key: key, cid: cid, id: path.id)
            }
        }
    }

    /// Inserts one entry; the build and a write may both add the entry of a document written during the build.
    static func insertCompositeEntry(
        _ connection: PostgresConnection, iid: Int64, scope: Int64, key: [UInt8], cid: Int64, id: String
    ) throws {
        try connection.query(
            "INSERT INTO cidx(iid, scope, key, cid, id) VALUES($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
            [.int(iid), .int(scope), .bytes(key), .int(cid), PostgresRows.name(id)], prepared: true)
    }
}
