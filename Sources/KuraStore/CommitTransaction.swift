import KuraModel

/// The row operations a commit is made of, as an engine's write transaction provides them: reading a document,
/// inserting, replacing and removing it with its single-field index entries, keeping composite index entries and
/// appending to the change log. `CommitApplier` builds every commit from them, so what a write does to the stored
/// rows is decided once for every engine; the engine decides only how each operation reaches its database.
///
/// A `cid` is the engine's numeric key of a collection path (its `collections` table). Used only on the engine's
/// writer thread, inside the transaction of the batch being written.
package protocol CommitTransaction: AnyObject {
    /// How many times `CommitApplier` applies a write that read its document as missing and then found it there
    /// when inserting it. 1 where this transaction is the only writer (a missing-then-present document is a bug);
    /// more where another node's writer may insert the same document meanwhile: the insert then waits for that
    /// node's commit, and the write is applied again to what it committed.
    static var insertAttempts: Int { get }

    /// The composite indexes writes keep (CREATING or READY).
    var composites: CompositeIndexCatalog { get }

    /// The commit time of the next commit: the wall clock in microseconds, later than every earlier commit's.
    func nextCommitTime() -> Int64

    /// The cid of `collection`, inserting the collection when `create` (nil: it does not exist, and not `create`).
    func cid(of collection: CollectionPath, create: Bool) throws -> Int64?

    /// The current document at `path` with its stored encoding, and its cid (nil cid: the collection was never
    /// written).
    func document(at path: DocumentPath) throws -> (cid: Int64?, stored: StoredDocument?)

    /// Inserts a new document at version 1, created and updated at `time`; `false` if one exists at that path
    /// (the unique key decides, without aborting the transaction). `entries` are the document's index entries,
    /// for an engine that keeps some of them on the document's row (`insertEntries` stores them all).
    func insertDocument(cid: Int64, id: String, data: [UInt8], entries: [IndexEntry], time: Int64) throws -> Bool

    /// Inserts `document` with its own create and update times and version (an import); `false` if one exists
    /// at its path. `entries`: as for `insertDocument`.
    func insertImportedDocument(_ document: Document, cid: Int64, data: [UInt8], entries: [IndexEntry]) throws
        -> Bool

    /// Replaces an existing document's data and brings its index entries from `oldFields` to `newEntries`.
    func updateDocument(
        cid: Int64, id: String, data: [UInt8], time: Int64, version: Int64, oldFields: JSONObject,
        newEntries: [IndexEntry]
    ) throws

    /// Sets an existing document's create time (an import replacing a document keeps the imported one's).
    func setCreateTime(_ createTime: Int64, cid: Int64, id: String) throws

    /// Inserts a document's single-field index entries.
    func insertEntries(_ entries: [IndexEntry], cid: Int64, id: String) throws

    /// Deletes a document row and its single-field index entries (those of `fields`).
    func remove(cid: Int64, id: String, fields: JSONObject) throws

    /// Inserts one composite index entry; an entry that is there already is left as it is (an index build and
    /// a write may both add the entry of a document written during the build).
    func insertCompositeEntry(iid: Int64, scope: Int64, key: [UInt8], cid: Int64, id: String) throws

    /// Deletes one composite index entry.
    func deleteCompositeEntry(iid: Int64, scope: Int64, key: [UInt8]) throws

    /// Appends a change-log entry with the document's encoding before (`nil`: it did not exist) and after
    /// (`nil`: deleted), in the order of the transaction's writes.
    func appendChange(
        path: DocumentPath, kind: Change.Kind, version: Int64, time: Int64, createTime: Int64,
        before: StoredDocument?, after: [UInt8]?
    ) throws
}
