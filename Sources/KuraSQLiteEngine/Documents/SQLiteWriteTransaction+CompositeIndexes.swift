import KuraCore
import KuraModel
import KuraSQLite
import KuraStore

/// Composite index entries, written on the writer thread inside the current transaction: kept by every write of a
/// document (`CommitTransaction.updateCompositeEntries`, so an acknowledged write is in every index it belongs to)
/// and filled in by the background build.
extension SQLiteWriteTransaction {
    func deleteCompositeEntry(iid: Int64, scope: Int64, key: [UInt8]) throws {
        try connection.run(
            "DELETE FROM cidx WHERE iid = ? AND scope = ? AND key = ?", [.int(iid), .int(scope), .blob(key)])
    }

    func insertCompositeEntry(iid: Int64, scope: Int64, key: [UInt8], cid: Int64, id: String) throws {
        // OR IGNORE: the build and a write may both add the entry of a document written during the build.
        try connection.run(
            "INSERT OR IGNORE INTO cidx(iid, scope, key, cid, id) VALUES(?, ?, ?, ?, ?)",
            [.int(iid), .int(scope), .blob(key), .int(cid), .text(id)])
    }

    /// Records a new index as CREATING (writes keep it from this transaction on); returns its id.
    func insertCompositeIndex(_ index: CompositeIndex) throws -> Int64 {
        let definition = String(decoding: index.json.jsonBytes, as: UTF8.self)
        // A dropped index with this definition whose entries are still being deleted (by its own iid).
        try connection.run("DELETE FROM composite_indexes WHERE definition = ?", [.text(definition)])
        try connection.run(
            "INSERT INTO composite_indexes(definition, state) VALUES(?, 'CREATING')", [.text(definition)])
        let iid = try connection.rows("SELECT last_insert_rowid()")[0][0].int ?? 0
        composites.put(CompositeIndexStatus(id: iid, index: index, state: .creating, documentsScanned: 0))
        return iid
    }

    /// One step of an index build: adds `entries` (computed from the documents as a read connection saw them)
    /// to index `iid`. Each entry's document is read again: unchanged since (same version and data), it gets the
    /// entry; changed, the entries of its current data instead; deleted, nothing (the writes that changed or
    /// deleted it kept its entries, except those its data had before and after, which are the ones added here).
    /// Every `yieldEvery` entries it asks `shouldYield` whether to stop early (a write is waiting); returns how many
    /// entries it added. When `done` and it added them all, the index is marked READY with `scanned` documents.
    func addBuiltEntries(
        _ iid: Int64, _ index: CompositeIndex, _ entries: [IndexBuildEntry], scanned: Int64, done: Bool,
        yieldEvery: Int = 16, shouldYield: () -> Bool = { false }
    ) throws -> Int {
        for (position, entry) in entries.enumerated() {
            if position > 0 && position % yieldEvery == 0 && shouldYield() { return position }
            guard
                let row = try connection.rows(
                    "SELECT version, data FROM docs WHERE cid = ? AND id = ?", [.int(entry.cid), .text(entry.id)]
                ).first, let data = row[1].blob
            else { continue }
            if row[0].int == entry.version && IndexBuildEntry.fingerprint(data) == entry.fingerprint {
                try insertCompositeEntry(iid: iid, scope: entry.scope, key: entry.key, cid: entry.cid, id: entry.id)
                continue
            }
            guard
                let path = try connection.rows("SELECT path FROM collections WHERE cid = ?", [.int(entry.cid)])
                    .first?[0].text,
                let collection = try? CollectionPath(path),
                case .object(let fields) = try JSONValue.parse(data, maxDepth: 512)
            else { continue }
            for key in CompositeIndexKey.keys(index, fields: fields, id: entry.id, collection: collection) {
                try insertCompositeEntry(iid: iid, scope: entry.scope, key: key, cid: entry.cid, id: entry.id)
            }
        }
        if done {
            try connection.run(
                "UPDATE composite_indexes SET scanned = ?, state = 'READY' WHERE iid = ?", [.int(scanned), .int(iid)])
        }
        return entries.count
    }

    /// Deletes up to `batch` entries of a dropped index (and its definition); `false` once none are left.
    func dropCompositeEntries(_ iid: Int64, batch: Int) throws -> Bool {
        try connection.run("DELETE FROM composite_indexes WHERE iid = ?", [.int(iid)])
        try connection.run(
            """
            DELETE FROM cidx WHERE iid = ?1 AND (scope, key) IN (SELECT scope, key FROM cidx WHERE iid = ?1 LIMIT ?2)
            """, [.int(iid), .int(Int64(batch))])
        return connection.changes > 0
    }
}
