import KuraCore
import KuraModel
import KuraPostgres
import KuraStore

/// One write batch's view of its transaction: transaction control plus the row operations commits are made of
/// (documents, index entries, change log). Made on the writer thread and used only there: both are checked in every
/// build (`WriterThread`), the use on each access to `connection`, which is set for the batch.
///
/// Change-log entries are collected while the jobs run and inserted after `reserve` takes their sequence numbers,
/// the last thing before COMMIT (`finish`), so the span during which other committers wait is as short as it can be.
///
/// `CommitApplier` builds commits and imports from these operations (`CommitTransaction`).
final class PostgresWriteTransaction: CommitTransaction, JobSavepoint {
    /// Another node may insert the document a write found missing before this write inserts it: the insert then
    /// waits for that node's commit and finds the row (`ON CONFLICT DO NOTHING`), and the write is applied again
    /// to what that node committed.
    static let insertAttempts = 3

    /// A change-log entry waiting for its sequence number.
    struct PendingChange {
        var path: DocumentPath
        var kind: Change.Kind
        var version: Int64
        var time: Int64
        var createTime: Int64
        var before: StoredDocument?
        var after: [UInt8]?
    }

    /// The batch's connection (set by the writer before `begin`). Writer thread only (checked).
    var connection: PostgresConnection! {
        get {
            writerThread.preconditionOnWriterThread("PostgresWriteTransaction")
            return batchConnection
        }
        set {
            writerThread.preconditionOnWriterThread("PostgresWriteTransaction")
            batchConnection = newValue
        }
    }
    private var batchConnection: PostgresConnection?
    /// The thread the transaction belongs to.
    let writerThread: WriterThread
    /// The composite indexes writes keep.
    let composites: CompositeIndexCatalog
    /// Collection path → cid, for collections known to be committed.
    var cids: [CollectionPath: Int64] = [:]
    private var savepointCids: [CollectionPath: Int64] = [:]
    /// Collections inserted by the transaction (cached in `cids` once it commits).
    var transactionCids: [CollectionPath: Int64] = [:]
    private var lastCommitTime: Int64 = 0
    /// Entries of the jobs done so far in this transaction, and of the current job.
    var changes: [PendingChange] = []
    private var jobChanges: [PendingChange] = []
    /// Statements that changed rows in this transaction (a failed job that changed some cannot fail alone without
    /// a savepoint).
    var modifications = 0
    /// Transactions begun so far.
    private(set) var transactions = 0

    /// A transaction made on `writerThread` (checked).
    init(composites: CompositeIndexCatalog, writerThread: WriterThread) {
        writerThread.preconditionOnWriterThread("PostgresWriteTransaction")
        self.composites = composites
        self.writerThread = writerThread
    }

    // MARK: Transaction control

    /// Begins the batch's transaction and takes its locks, in one round trip: BEGIN, the shared side of the
    /// catalog lock (see PostgresDocumentSchema), the advisory locks of documents `keys` (`lock`), and the
    /// catalog version, which it returns (for `PostgresDocumentStore.refreshCatalogInTransaction`).
    func begin(locking keys: Set<Int64>) throws -> Int64 {
        var sql =
            "BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock_shared(\(PostgresDocumentSchema.catalogLock))"
        for chunk in Self.lockOrder(keys) {
            // A target list holds at most 1,664 entries; the calls are evaluated left to right.
            sql += "; SELECT " + chunk.map { "pg_advisory_xact_lock(\($0))" }.joined(separator: ", ")
        }
        sql += "; SELECT version FROM composite_catalog"
        let version = try connection.executeReturningLast(sql)
        transactions += 1
        changes = []
        jobChanges = []
        modifications = 0
        return try version.int(0, 0) ?? 0
    }
    func savepoint() throws {
        savepointCids = [:]
        jobChanges = []
        try connection.query("SAVEPOINT job", prepared: true)
    }
    func release() throws {
        try connection.query("RELEASE job", prepared: true)
        keepJobState()
    }
    /// Ends a job that left the transaction consistent (succeeded, or failed without changing a row).
    func keepJobState() {
        transactionCids.merge(savepointCids) { $1 }
        savepointCids = [:]
        changes += jobChanges
        jobChanges = []
    }
    /// Forgets the current job's work (its rows were not written, or were rolled back).
    func discardJobState() {
        savepointCids = [:]
        jobChanges = []
    }
    func rollbackToSavepoint() {
        if connection.isConnected {
            try? connection.execute("ROLLBACK TO job; RELEASE job")
        }
        discardJobState()
    }

    func rollback() {
        if connection.isConnected { try? connection.execute("ROLLBACK") }
        transactionCids = [:]
        savepointCids = [:]
        changes = []
        jobChanges = []
    }

    /// The advisory lock key of a document path: FNV-1a of its bytes (a collision only makes two documents'
    /// writers wait for each other).
    static func lockKey(_ path: DocumentPath) -> Int64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in path.description.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01B3
        }
        return Int64(bitPattern: hash)
    }

    /// Most advisory locks one batch takes: they live in PostgreSQL's shared lock table
    /// (`max_locks_per_transaction` × connections, 6,400 by default, for every node together). A batch writing more
    /// documents locks `maxLocks` buckets of them instead.
    static let maxLocks = 256

    /// The advisory locks of documents `keys` in the order `begin` takes them: sorted, so every batch on every
    /// node takes them in the same order and none waits for another that waits for it; held until the
    /// transaction ends. (A batch locking buckets and one locking documents can still deadlock on their rows;
    /// PostgreSQL detects that and the writer retries.) In chunks of 500, one statement each.
    static func lockOrder(_ keys: Set<Int64>) -> [[Int64]] {
        var keys = keys
        if keys.count > Self.maxLocks {
            // Bucket keys: the high bits of the document key, in a range of their own.
            keys = Set(keys.map { 0x6B75_7261_2E62_0000 | Int64(UInt64(bitPattern: $0) % UInt64(Self.maxLocks)) })
        }
        let sorted = keys.sorted()
        return stride(from: 0, to: sorted.count, by: 500).map { Array(sorted[$0..<min($0 + 500, sorted.count)]) }
    }

    /// A commit time strictly after the previous one, so updateTime orders this node's writes even if the clock
    /// steps back.
    func nextCommitTime() -> Int64 {
        lastCommitTime = max(WallClock.nowMicros(), lastCommitTime + 1)
        return lastCommitTime
    }

    @discardableResult
    private func modify(_ sql: String, _ parameters: [PostgresValue]) throws -> PostgresResult {
        let result = try connection.query(sql, parameters, resultFormat: .binary, prepared: true)
        modifications += result.affectedRows
        return result
    }

    // MARK: Rows

    /// The cid of `collection`, inserting it when `create` is set (another node may insert it at the same time:
    /// `ON CONFLICT DO NOTHING` waits for it and then reads its row).
    func cid(of collection: CollectionPath, create: Bool) throws -> Int64? {
        if let cid = cids[collection] ?? transactionCids[collection] ?? savepointCids[collection] { return cid }
        let path = PostgresRows.name(collection.description)
        let select = "SELECT cid FROM collections WHERE path = $1"
        let found = try connection.query(select, [path], resultFormat: .binary, prepared: true)
        if found.rowCount == 1, let cid = try found.int(0, 0) {
            // Perhaps inserted by an earlier job of this transaction: cached once the transaction commits.
            savepointCids[collection] = cid
            return cid
        }
        guard create else { return nil }
        let inserted = try modify(
            """
            INSERT INTO collections(path, group_id, pkey) VALUES($1, $2, $3) ON CONFLICT (path) DO NOTHING
            RETURNING cid
            """,
            [path, PostgresRows.name(collection.collectionID), .bytes(IndexKey.pathKey(collection.segments))])
        if inserted.rowCount == 1, let cid = try inserted.int(0, 0) {
            savepointCids[collection] = cid
            return cid
        }
        let raced = try connection.query(select, [path], resultFormat: .binary, prepared: true)
        guard raced.rowCount == 1, let cid = try raced.int(0, 0) else {
            throw PostgresError(kind: .protocolViolation, message: "collection \(collection) vanished")
        }
        cids[collection] = cid
        return cid
    }

    /// The current document at `path` (locked until the transaction ends, so a concurrent writer on another node
    /// waits and then reads this write's outcome), and its cid (nil cid: the collection was never written).
    func document(at path: DocumentPath) throws -> (cid: Int64?, stored: StoredDocument?) {
        guard let cid = try cid(of: path.collection, create: false) else { return (nil, nil) }
        let rows = try connection.query(
            "SELECT data, ctime, utime, version FROM docs WHERE cid = $1 AND id = $2 FOR UPDATE",
            [.int(cid), PostgresRows.name(path.id)], resultFormat: .binary, prepared: true)
        guard rows.rowCount == 1 else { return (cid, nil) }
        let document = try PostgresRows.document(path: path, rows, 0, data: 0, ctime: 1, utime: 2, version: 3)
        return (cid, StoredDocument(document: document, data: rows.bytes(0, 0) ?? []))
    }

    /// Inserts a new document at version 1 with the value keys of `entries`; `false` if one exists at that path
    /// (the unique key decides, without aborting the transaction).
    func insertDocument(cid: Int64, id: String, data: [UInt8], entries: [IndexEntry], time: Int64) throws -> Bool {
        let result = try modify(
            """
            INSERT INTO docs(cid, id, data, ctime, utime, version, vfields, vkeys) VALUES($1, $2, $3, $4, $4, 1, $5, $6)
            ON CONFLICT (cid, id) DO NOTHING
            """,
            [.int(cid), PostgresRows.name(id), .bytes(data), .int(time)]
                + PostgresValueKeys(stored: PostgresRows.stored(entries)).bindings)
        return result.affectedRows == 1
    }

    /// Inserts `document` with its own times and version (an import); `false` if another node created it after
    /// this transaction read it as missing.
    func insertImportedDocument(_ document: Document, cid: Int64, data: [UInt8], entries: [IndexEntry]) throws
        -> Bool
    {
        let result = try connection.query(
            """
            INSERT INTO docs(cid, id, data, ctime, utime, version, vfields, vkeys) VALUES($1, $2, $3, $4, $5, $6, $7, $8)
            ON CONFLICT (cid, id) DO NOTHING
            """,
            [
                .int(cid), PostgresRows.name(document.id), .bytes(data), .int(document.createTime),
                .int(document.updateTime), .int(document.version),
            ] + PostgresValueKeys(stored: PostgresRows.stored(entries)).bindings, prepared: true)
        guard result.affectedRows == 1 else { return false }
        modifications += 1
        return true
    }

    /// Sets an existing document's create time (an import replacing a document).
    func setCreateTime(_ createTime: Int64, cid: Int64, id: String) throws {
        let result = try connection.query(
            "UPDATE docs SET ctime = $1 WHERE cid = $2 AND id = $3",
            [.int(createTime), .int(cid), PostgresRows.name(id)],
            prepared: true)
        modifications += result.affectedRows
    }

    /// Replaces an existing document's data and value keys and brings its index entries from `oldFields` to
    /// `newEntries`.
    func updateDocument(
        cid: Int64, id: String, data: [UInt8], time: Int64, version: Int64, oldFields: JSONObject,
        newEntries: [IndexEntry]
    ) throws {
        let stored = PostgresRows.stored(newEntries)
        try modify(
            "UPDATE docs SET data = $1, utime = $2, version = $3, vfields = $6, vkeys = $7 WHERE cid = $4 AND id = $5",
            [.bytes(data), .int(time), .int(version), .int(cid), PostgresRows.name(id)]
                + PostgresValueKeys(stored: stored).bindings)
        let old = Set(PostgresRows.stored(IndexEntries.of(oldFields)))
        let new = Set(stored)
        try deleteEntries(Array(old.subtracting(new)), cid: cid, id: id)
        try insertEntries(Array(new.subtracting(old)), cid: cid, id: id)
    }

    /// Inserts index entries, several rows per statement.
    func insertEntries(_ entries: [IndexEntry], cid: Int64, id: String) throws {
        var pending = PostgresRows.stored(entries)[...]
        let name = PostgresRows.name(id)
        while !pending.isEmpty {
            let chunk = pending.prefix(Self.entriesPerStatement)
            pending = pending.dropFirst(chunk.count)
            var bindings: [PostgresValue] = [.int(cid), name]
            bindings.reserveCapacity(2 + chunk.count * 3)
            for entry in chunk { bindings += [PostgresRows.name(entry.field), .int(entry.kind), .bytes(entry.value)] }
            try modify(Self.insertEntriesSQL[chunk.count], bindings)
        }
    }

    private static let entriesPerStatement = 32
    /// `insertEntriesSQL[n]` inserts `n` rows of one document (`$1` cid, `$2` id).
    private static let insertEntriesSQL: [String] = (0...entriesPerStatement).map { count in
        "INSERT INTO idx(cid, field, kind, value, id) VALUES "
            + (0..<count).map { "($1, $\(3 + 3 * $0), $\(4 + 3 * $0), $\(5 + 3 * $0), $2)" }.joined(separator: ", ")
    }

    /// Deletes a document row and its index entries.
    func remove(cid: Int64, id: String, fields: JSONObject) throws {
        try modify("DELETE FROM docs WHERE cid = $1 AND id = $2", [.int(cid), PostgresRows.name(id)])
        try deleteEntries(PostgresRows.stored(IndexEntries.of(fields)), cid: cid, id: id)
    }

    private func deleteEntries(_ entries: [IndexEntry], cid: Int64, id: String) throws {
        var pending = entries[...]
        let name = PostgresRows.name(id)
        while !pending.isEmpty {
            let chunk = pending.prefix(Self.entriesPerStatement)
            pending = pending.dropFirst(chunk.count)
            var bindings: [PostgresValue] = [.int(cid), name]
            for entry in chunk { bindings += [PostgresRows.name(entry.field), .int(entry.kind), .bytes(entry.value)] }
            try modify(Self.deleteEntriesSQL[chunk.count], bindings)
        }
    }

    /// `deleteEntriesSQL[n]` deletes `n` entries of one document.
    private static let deleteEntriesSQL: [String] = (0...entriesPerStatement).map { count in
        "DELETE FROM idx WHERE cid = $1 AND id = $2 AND (field, kind, value) IN ("
            + (0..<count).map { "($\(3 + 3 * $0), $\(4 + 3 * $0), $\(5 + 3 * $0))" }.joined(separator: ", ") + ")"
    }

    /// Queues a change-log entry with the document's encoding before (`nil`: it did not exist) and after
    /// (`nil`: deleted); it is inserted with its sequence number at the end of the transaction.
    func appendChange(
        path: DocumentPath, kind: Change.Kind, version: Int64, time: Int64, createTime: Int64,
        before: StoredDocument?, after: [UInt8]?
    ) {
        jobChanges.append(
            PendingChange(
                path: path, kind: kind, version: version, time: time, createTime: createTime, before: before,
                after: after))
    }
}
