import KuraCore
import KuraSQLite

/// The writer connection's view of the current transaction: transaction control plus the row-level operations
/// commits are made of (documents, index entries, change log). Used only on the writer thread.
final class SQLiteWriteTransaction {
    let connection: SQLiteConnection
    /// Collection path → cid, for collections known to be committed.
    private var cids: [String: Int64] = [:]
    /// Collections inserted by the current savepoint / transaction, not yet safe to cache.
    private var savepointCids: [String: Int64] = [:]
    private var transactionCids: [String: Int64] = [:]
    private var lastCommitTime: Int64 = 0

    init(connection: SQLiteConnection) { self.connection = connection }

    // MARK: Transaction control

    func begin() throws { try connection.execute("BEGIN IMMEDIATE") }
    func savepoint() throws {
        savepointCids = [:]
        try connection.execute("SAVEPOINT job")
    }
    func release() throws {
        try connection.execute("RELEASE job")
        transactionCids.merge(savepointCids) { $1 }
        savepointCids = [:]
    }
    func rollbackToSavepoint() {
        try? connection.execute("ROLLBACK TO job")
        try? connection.execute("RELEASE job")
        savepointCids = [:]
    }
    func commit() throws {
        try connection.execute("COMMIT")
        cids.merge(transactionCids) { $1 }
        transactionCids = [:]
    }
    func rollback() {
        try? connection.execute("ROLLBACK")
        transactionCids = [:]
        savepointCids = [:]
    }

    /// A commit time strictly after the previous one, so updateTime orders writes even if the clock steps back.
    func nextCommitTime() -> Int64 {
        lastCommitTime = max(Timestamp.nowMicros(), lastCommitTime + 1)
        return lastCommitTime
    }

    // MARK: Rows

    /// The cid of `collection`, inserting it when `create` is set.
    func cid(of collection: CollectionPath, create: Bool) throws -> Int64? {
        let path = collection.description
        if let cid = cids[path] ?? transactionCids[path] ?? savepointCids[path] { return cid }
        if let cid = try connection.rows("SELECT cid FROM collections WHERE path = ?", [.text(path)]).first?[0].int {
            savepointCids[path] = cid
            return cid
        }
        guard create else { return nil }
        try connection.run(
            "INSERT INTO collections(path, group_id, pkey) VALUES(?, ?, ?)",
            [.text(path), .text(collection.collectionID), .blob(SQLiteRows.pathKey(collection.segments))])
        let cid = try connection.rows("SELECT last_insert_rowid()")[0][0].int ?? 0
        savepointCids[path] = cid
        return cid
    }

    /// The current document at `path` and its cid (nil cid: the collection was never written).
    func document(at path: DocumentPath) throws -> (cid: Int64?, document: Document?) {
        guard let cid = try cid(of: path.collection, create: false) else { return (nil, nil) }
        let rows = try connection.rows(
            "SELECT data, ctime, utime, version FROM docs WHERE cid = ? AND id = ?", [.int(cid), .text(path.id)])
        guard let row = rows.first else { return (cid, nil) }
        return (cid, try SQLiteRows.document(path: path, data: row[0], ctime: row[1], utime: row[2], version: row[3]))
    }

    /// Inserts or replaces a document row and brings its index entries from `oldFields` to `newFields`.
    func store(
        cid: Int64, id: String, data: [UInt8], createTime: Int64, updateTime: Int64, version: Int64,
        oldFields: JSONObject?, newFields: JSONObject
    ) throws {
        if oldFields == nil {
            try connection.run(
                "INSERT INTO docs(cid, id, data, ctime, utime, version) VALUES(?, ?, ?, ?, ?, ?)",
                [.int(cid), .text(id), .blob(data), .int(createTime), .int(updateTime), .int(version)])
        } else {
            try connection.run(
                "UPDATE docs SET data = ?, utime = ?, version = ? WHERE cid = ? AND id = ?",
                [.blob(data), .int(updateTime), .int(version), .int(cid), .text(id)])
        }
        let old = oldFields.map(IndexEntries.of) ?? []
        let new = IndexEntries.of(newFields)
        try deleteEntries(old.subtracting(new), cid: cid, id: id)
        for entry in new.subtracting(old) {
            try connection.run(
                "INSERT INTO idx(cid, field, kind, value, id) VALUES(?, ?, ?, ?, ?)",
                [.int(cid), .text(entry.field), .int(entry.kind), .blob(entry.value), .text(id)])
        }
    }

    /// Deletes a document row and its index entries.
    func remove(cid: Int64, id: String, fields: JSONObject) throws {
        try connection.run("DELETE FROM docs WHERE cid = ? AND id = ?", [.int(cid), .text(id)])
        try deleteEntries(IndexEntries.of(fields), cid: cid, id: id)
    }

    private func deleteEntries(_ entries: Set<IndexEntry>, cid: Int64, id: String) throws {
        for entry in entries {
            try connection.run(
                "DELETE FROM idx WHERE cid = ? AND field = ? AND kind = ? AND value = ? AND id = ?",
                [.int(cid), .text(entry.field), .int(entry.kind), .blob(entry.value), .text(id)])
        }
    }

    /// Appends a change-log entry.
    func appendChange(path: DocumentPath, kind: Change.Kind, version: Int64, time: Int64) throws {
        try connection.run(
            "INSERT INTO changes(path, kind, version, time) VALUES(?, ?, ?, ?)",
            [.text(path.description), .int(Int64(kind.rawValue)), .int(version), .int(time)])
    }

    /// Deletes the leading run of change-log entries older than `cutoff`.
    func pruneChanges(olderThan cutoff: Int64) throws {
        // Walk from the oldest entry to the first one to keep (cost ∝ entries pruned), then delete by key range.
        let keep = try connection.rows("SELECT seq FROM changes WHERE time >= ? ORDER BY seq LIMIT 1", [.int(cutoff)])
        if let first = keep.first?[0].int {
            try connection.run("DELETE FROM changes WHERE seq < ?", [.int(first)])
        } else {
            try connection.run("DELETE FROM changes")
        }
    }
}
