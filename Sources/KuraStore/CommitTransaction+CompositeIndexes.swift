import KuraModel

/// Composite index entries, kept by every write of a document inside its commit's transaction, so an acknowledged
/// write is in every index it belongs to.
extension CommitTransaction {
    /// Brings the document at `path`'s composite entries from `old` fields to `new` ones (`nil`: no document),
    /// for every index of its collection ID that is being built or ready.
    package func updateCompositeEntries(_ path: DocumentPath, cid: Int64, old: JSONObject?, new: JSONObject?) throws {
        let collection = path.collection
        let indexes = composites.maintained(for: collection.collectionID)
        if indexes.isEmpty { return }
        for (iid, index) in indexes {
            let scope = index.scope == .collection ? cid : 0
            let before = old.map { CompositeIndexKey.keys(index, fields: $0, id: path.id, collection: collection) }
            let after = new.map { CompositeIndexKey.keys(index, fields: $0, id: path.id, collection: collection) }
            if before == after { continue }
            for key in Set(before ?? []).subtracting(after ?? []) {
                try deleteCompositeEntry(iid: iid, scope: scope, key: key)
            }
            for key in Set(after ?? []).subtracting(before ?? []) {
                try insertCompositeEntry(iid: iid, scope: scope, key: key, cid: cid, id: path.id)
            }
        }
    }
}
