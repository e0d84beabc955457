import KuraCore
import KuraModel
import KuraSQLite
import KuraStore

/// The writer connection's view of the current transaction: transaction control plus the row-level operations
/// commits are made of (documents, index entries, change log). Made on the writer thread and used only there: both
/// are checked in every build (`WriterThread`), the use on each access to `connection`, so a job that hands the
/// transaction to another thread traps with a clear message instead of writing through the connection at the
/// same time as the writer.
///
/// `CommitApplier` builds commits and imports from these operations (`CommitTransaction`).
final class SQLiteWriteTransaction: CommitTransaction, JobSavepoint {
    /// Only this connection writes, so a document read as missing cannot appear before this transaction inserts it.
    static let insertAttempts = 1

    /// The writer's connection. Writer thread only (checked).
    var connection: SQLiteConnection {
        writerThread.preconditionOnWriterThread("SQLiteWriteTransaction")
        return ownedConnection
    }
    private let ownedConnection: SQLiteConnection
    /// The thread the transaction belongs to.
    let writerThread: WriterThread
    /// The composite indexes writes keep (`SQLiteWriteTransaction+CompositeIndexes`).
    let composites: CompositeIndexCatalog
    /// Collection path → cid, for collections known to be committed. Keyed by `CollectionPath` (byte identity, as
    /// the `collections` table): a `String` key resolved `groups/が/members` to the row of
    /// `groups/か\u{3099}/members`, another user's collection.
    private var cids: [CollectionPath: Int64] = [:]
    /// Collections inserted by the current savepoint / transaction, not yet safe to cache.
    private var savepointCids: [CollectionPath: Int64] = [:]
    private var transactionCids: [CollectionPath: Int64] = [:]
    private var lastCommitTime: Int64 = 0

    /// A transaction on `connection`, made on `writerThread` (checked).
    init(connection: SQLiteConnection, composites: CompositeIndexCatalog, writerThread: WriterThread) {
        writerThread.preconditionOnWriterThread("SQLiteWriteTransaction")
        self.ownedConnection = connection
        self.composites = composites
        self.writerThread = writerThread
    }

    // MARK: Transaction control (prepared once: `execute` would parse the SQL on every job)

    /// Transactions begun so far (tests tell batches apart by it).
    private(set) var transactions = 0

    func begin() throws {
        try connection.run("BEGIN IMMEDIATE")
        transactions += 1
    }
    func savepoint() throws {
        savepointCids = [:]
        try connection.run("SAVEPOINT job")
    }
    func release() throws {
        try connection.run("RELEASE job")
        keepJobState()
    }
    /// Ends a job that ran without a savepoint and left the transaction consistent (succeeded, or failed without
    /// changing a row).
    func keepJobState() {
        transactionCids.merge(savepointCids) { $1 }
        savepointCids = [:]
    }
    func rollbackToSavepoint() {
        try? connection.run("ROLLBACK TO job")
        try? connection.run("RELEASE job")
        savepointCids = [:]
    }
    func commit() throws {
        try connection.run("COMMIT")
        cids.merge(transactionCids) { $1 }
        transactionCids = [:]
    }
    func rollback() {
        try? connection.run("ROLLBACK")
        transactionCids = [:]
        savepointCids = [:]
    }

    /// A commit time strictly after the previous one, so updateTime orders writes even if the clock steps back.
    func nextCommitTime() -> Int64 {
        lastCommitTime = max(WallClock.nowMicros(), lastCommitTime + 1)
        return lastCommitTime
    }

    // MARK: Rows

    /// The cid of `collection`, inserting it when `create` is set.
    func cid(of collection: CollectionPath, create: Bool) throws -> Int64? {
        if let cid = cids[collection] ?? transactionCids[collection] ?? savepointCids[collection] { return cid }
        let path = collection.description
        if let cid = try connection.rows("SELECT cid FROM collections WHERE path = ?", [.text(path)]).first?[0].int {
            savepointCids[collection] = cid
            return cid
        }
        guard create else { return nil }
        try connection.run(
            "INSERT INTO collections(path, group_id, pkey) VALUES(?, ?, ?)",
            [.text(path), .text(collection.collectionID), .blob(IndexKey.pathKey(collection.segments))])
        let cid = try connection.rows("SELECT last_insert_rowid()")[0][0].int ?? 0
        savepointCids[collection] = cid
        return cid
    }

    /// The current document at `path` with its stored encoding, and its cid (nil cid: the collection was never
    /// written).
    func document(at path: DocumentPath) throws -> (cid: Int64?, stored: StoredDocument?) {
        guard let cid = try cid(of: path.collection, create: false) else { return (nil, nil) }
        let rows = try connection.rows(
            "SELECT data, ctime, utime, version FROM docs WHERE cid = ? AND id = ?", [.int(cid), .text(path.id)])
        guard let row = rows.first else { return (cid, nil) }
        let document = try SQLiteRows.document(path: path, data: row[0], ctime: row[1], utime: row[2], version: row[3])
        return (cid, StoredDocument(document: document, data: row[0].blob ?? []))
    }

    /// Inserts a new document at version 1; `false` if one exists at that path (the unique key decides).
    func insertDocument(cid: Int64, id: String, data: [UInt8], entries: [IndexEntry], time: Int64) throws -> Bool {
        do {
            try connection.run(
                "INSERT INTO docs(cid, id, data, ctime, utime, version) VALUES(?, ?, ?, ?, ?, 1)",
                [.int(cid), .text(id), .blob(data), .int(time), .int(time)])
            return true
        } catch let error as SQLiteError where error.isUniqueViolation {
            return false
        }
    }

    /// Inserts `document` with its own times and version (an import). Only this connection writes, so nothing
    /// can have inserted it since the transaction read it as missing: always `true`.
    func insertImportedDocument(_ document: Document, cid: Int64, data: [UInt8], entries: [IndexEntry]) throws
        -> Bool
    {
        try connection.run(
            "INSERT INTO docs(cid, id, data, ctime, utime, version) VALUES(?, ?, ?, ?, ?, ?)",
            [
                .int(cid), .text(document.id), .blob(data), .int(document.createTime), .int(document.updateTime),
                .int(document.version),
            ])
        return true
    }

    /// Replaces an existing document's data and brings its index entries from `oldFields` to `newEntries`.
    func updateDocument(
        cid: Int64, id: String, data: [UInt8], time: Int64, version: Int64, oldFields: JSONObject,
        newEntries: [IndexEntry]
    ) throws {
        try connection.run(
            "UPDATE docs SET data = ?, utime = ?, version = ? WHERE cid = ? AND id = ?",
            [.blob(data), .int(time), .int(version), .int(cid), .text(id)])
        let old = Set(IndexEntries.of(oldFields))
        let new = Set(newEntries)
        try deleteEntries(old.subtracting(new), cid: cid, id: id)
        try insertEntries(Array(new.subtracting(old)), cid: cid, id: id)
    }

    func setCreateTime(_ createTime: Int64, cid: Int64, id: String) throws {
        try connection.run(
            "UPDATE docs SET ctime = ? WHERE cid = ? AND id = ?", [.int(createTime), .int(cid), .text(id)])
    }

    /// Inserts index entries, several rows per statement (one step instead of one per entry). `OR IGNORE` (the
    /// entries are distinct, so nothing is ever ignored) spares SQLite a statement journal: a multi-row INSERT
    /// that could abort half-way would otherwise copy every page it touches first.
    func insertEntries(_ entries: [IndexEntry], cid: Int64, id: String) throws {
        var pending = entries[...]
        while !pending.isEmpty {
            let chunk = pending.prefix(Self.entriesPerInsert)
            pending = pending.dropFirst(chunk.count)
            var bindings: [SQLiteValue] = []
            bindings.reserveCapacity(chunk.count * 5)
            for entry in chunk {
                bindings += [.int(cid), .text(entry.field), .int(entry.kind), .blob(entry.value), .text(id)]
            }
            try connection.run(Self.insertEntriesSQL[chunk.count], bindings)
        }
    }

    private static let entriesPerInsert = 16
    /// `insertEntriesSQL[n]` inserts `n` rows.
    private static let insertEntriesSQL: [String] = (0...entriesPerInsert).map { count in
        "INSERT OR IGNORE INTO idx(cid, field, kind, value, id) VALUES "
            + Array(repeating: "(?, ?, ?, ?, ?)", count: count).joined(separator: ", ")
    }

    /// Deletes a document row and its index entries.
    func remove(cid: Int64, id: String, fields: JSONObject) throws {
        try connection.run("DELETE FROM docs WHERE cid = ? AND id = ?", [.int(cid), .text(id)])
        try deleteEntries(IndexEntries.of(fields), cid: cid, id: id)
    }

    private func deleteEntries(_ entries: some Collection<IndexEntry>, cid: Int64, id: String) throws {
        for entry in entries {
            try connection.run(
                "DELETE FROM idx WHERE cid = ? AND field = ? AND kind = ? AND value = ? AND id = ?",
                [.int(cid), .text(entry.field), .int(entry.kind), .blob(entry.value), .text(id)])
        }
    }

    /// Appends a change-log entry with the document's encoding before (`nil`: it did not exist) and after
    /// (`nil`: deleted).
    func appendChange(
        path: DocumentPath, kind: Change.Kind, version: Int64, time: Int64, createTime: Int64,
        before: StoredDocument?, after: [UInt8]?
    ) throws {
        try connection.run(
            """
            INSERT INTO changes(path, kind, version, time, ctime, old_utime, old_version, old_data, new_data)
            VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(path.description), .int(Int64(kind.rawValue)), .int(version), .int(time), .int(createTime),
                before.map { .int($0.document.updateTime) } ?? .null,
                before.map { .int($0.document.version) } ?? .null, before.map { .blob($0.data) } ?? .null,
                after.map { .blob($0) } ?? .null,
            ])
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
