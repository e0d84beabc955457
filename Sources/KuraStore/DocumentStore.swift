import KuraCore
import KuraModel

/// The document database behind `/api/docs`, `/api/query` and `/api/commit`.
///
/// Every method blocks until its work is done and is safe to call from many threads at once (the server calls
/// it from worker-pool threads, never from an event loop). A method that returns after a write means the write
/// is durable. Errors are `APIError`s ready to be answered as they are.
///
/// ## The change-log contract
/// The realtime feed (`ChangeFeed.follow`, `TargetReader` in KuraRealtime) and the hot-document cache read the
/// log as "everything after the last sequence I saw" and never look back. Every engine must therefore give:
/// - **One entry per committed write**, appended in the write's own transaction: a commit that fails or is rolled
///   back leaves no entry, and a durable one is in the log before `commit` returns.
/// - **Visible in sequence order, with no gap that fills in later.** Once any reader (in this process or another
///   one on the same database) has seen the entry with sequence `n`, no entry with a sequence below `n` may
///   become visible afterwards. Otherwise a follower that has moved past `n` silently loses the late entry.
/// - **Consecutive, never reused.** The retained entries are exactly the sequences `oldestRetainedSequence()`
///   through `latestSequence()`, each once (a rolled-back commit gives its numbers back); numbers are not
///   reused after pruning. `TargetReader` takes a missing `after + 1` to mean the log was pruned past `after`.
///
/// SQLite's single writer gives all three for free. A PostgreSQL `SEQUENCE` under concurrent transactions does
/// not (a later number can commit first); docs/design/scaling.md, "Change-log order on PostgreSQL", says how that
/// engine must number its entries. `ChangeLogOrderTests` (Tests/KuraStoreTests) holds every engine to this with
/// concurrent committers.
public protocol DocumentStore: Sendable {
    /// The document at `path`, or `nil`.
    func get(_ path: DocumentPath) throws -> Document?

    /// Applies all `writes` atomically (≤ 500; all succeed or none), in order, at one commit time.
    /// One failing precondition aborts everything with 412 `FAILED_PRECONDITION`.
    func commit(_ writes: [Write]) throws -> [WriteResult]

    /// The same as `commit(_:)`, but returns at once and calls `completion` when the commit is durable or failed,
    /// so no thread waits for the fsync. Engines should implement it; the default blocks the caller.
    func commit(_ writes: [Write], completion: @escaping @Sendable (Result<[WriteResult], any Error>) -> Void)

    /// The documents matching `query`; 400 `INVALID_QUERY` if it is malformed.
    func query(_ query: StructuredQuery) throws -> QueryResult

    /// How many documents match `query` (cursors and limit apply; select and pageToken do not).
    func count(_ query: StructuredQuery) throws -> Int64

    /// Up to `limit` change-log entries with `sequence > after`, oldest first, under the change-log contract
    /// above: a reader that passes the last sequence it saw as `after` never misses an entry.
    func changes(after sequence: Int64, limit: Int) throws -> [Change]

    /// The sequences and paths of `changes(after:limit:)`, without the documents: for a reader that only needs
    /// to know what changed (a node forgetting cached documents). Engines that can read less should implement
    /// it; the default reads the whole entries.
    func changedPaths(after sequence: Int64, limit: Int) throws -> [ChangedPath]

    /// The smallest sequence still in the change log (the next sequence to be assigned if the log is empty).
    /// A reader that has seen everything up to `oldestRetainedSequence - 1` can catch up from the log alone.
    func oldestRetainedSequence() throws -> Int64

    /// The sequence of the newest change-log entry (0 if nothing was ever written).
    func latestSequence() throws -> Int64
}

/// A change-log entry's sequence and document path (`DocumentStore.changedPaths`).
public struct ChangedPath: Sendable, Equatable {
    public var sequence: Int64
    public var path: DocumentPath

    public init(sequence: Int64, path: DocumentPath) {
        self.sequence = sequence
        self.path = path
    }
}

extension DocumentStore {
    public func changedPaths(after sequence: Int64, limit: Int) throws -> [ChangedPath] {
        try changes(after: sequence, limit: limit).map { ChangedPath(sequence: $0.sequence, path: $0.path) }
    }

    public func commit(
        _ writes: [Write], completion: @escaping @Sendable (Result<[WriteResult], any Error>) -> Void
    ) {
        completion(Result { try commit(writes) })
    }

    /// Creates a document with an automatic 20-character base62 ID (`AutoID`) in `collection`.
    @discardableResult
    public func create(in collection: CollectionPath, _ fields: JSONObject) throws -> Document {
        let path = try collection.document(AutoID.automatic())
        return try create(path, fields)
    }

    /// Creates the document at `path`; 409 `ALREADY_EXISTS` if it exists.
    @discardableResult
    public func create(_ path: DocumentPath, _ fields: JSONObject) throws -> Document {
        let result = try commitOne(Write(path: path, operation: .create(fields)))
        return Document(
            path: path, fields: fields, createTime: result.updateTime, updateTime: result.updateTime, version: 1)
    }

    /// Creates or replaces (with `merge`, deep-merges into) the document at `path`.
    @discardableResult
    public func set(
        _ path: DocumentPath, _ fields: JSONObject, merge: Bool = false, precondition: Precondition? = nil
    ) throws -> WriteResult {
        try commitOne(Write(path: path, operation: .set(fields, merge: merge), precondition: precondition))
    }

    /// Sets the named field paths of an existing document; 404 `NOT_FOUND` if it is missing.
    @discardableResult
    public func update(
        _ path: DocumentPath, _ fields: [(FieldPath, JSONValue)], precondition: Precondition? = nil
    ) throws -> WriteResult {
        try commitOne(Write(path: path, operation: .update(fields), precondition: precondition))
    }

    /// Deletes the document at `path` (no error if it is missing, unless a precondition says otherwise).
    @discardableResult
    public func delete(_ path: DocumentPath, precondition: Precondition? = nil) throws -> WriteResult {
        try commitOne(Write(path: path, operation: .delete, precondition: precondition))
    }

    private func commitOne(_ write: Write) throws -> WriteResult {
        let results = try commit([write])
        guard let result = results.first else { throw APIError.unavailable("the store returned no write result") }
        return result
    }
}
