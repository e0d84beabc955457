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

    /// One step of an index build: indexes the documents with `rid` in `(from, from + window]` of the index's
    /// collections. Returns the new position and the documents seen, and whether every document that existed is
    /// now indexed (the position passed the largest `rid`); then the index is marked READY in the database.
    func buildCompositeIndex(
        _ iid: Int64, _ index: CompositeIndex, from: Int64, window: Int64
    ) throws -> (position: Int64, scanned: Int64, done: Bool) {
        let rows = try connection.rows(
            """
            SELECT d.cid, d.id, d.data, c.path FROM docs d CROSS JOIN collections c ON c.cid = d.cid
            WHERE d.rid > ? AND d.rid <= ? AND c.group_id = ?
            """, [.int(from), .int(from + window), .text(index.collectionGroup)])
        for row in rows {
            guard let cid = row[0].int, let id = row[1].text, let bytes = row[2].blob,
                let collection = try? CollectionPath(row[3].text ?? ""),
                case .object(let fields) = try JSONValue.parse(bytes, maxDepth: 512)
            else { continue }
            let scope = index.scope == .collection ? cid : 0
            for key in CompositeIndexKey.keys(index, fields: fields, id: id, collection: collection) {
                try insertCompositeEntry(iid: iid, scope: scope, key: key, cid: cid, id: id)
            }
        }
        let position = from + window
        let largest = try connection.rows("SELECT max(rid) FROM docs").first?[0].int ?? 0
        let done = position >= largest
        try connection.run(
            "UPDATE composite_indexes SET build_rid = ?, scanned = scanned + ?, state = ? WHERE iid = ?",
            [.int(position), .int(Int64(rows.count)), .text(done ? "READY" : "CREATING"), .int(iid)])
        return (position, Int64(rows.count), done)
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
