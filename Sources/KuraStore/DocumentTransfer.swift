import KuraModel

/// What `kura export` and `kura import` need from a document store beyond `DocumentStore`: every document, page by
/// page, from one consistent snapshot; and writing documents exactly as they were (times and versions included).
/// An engine's `EngineDocumentStore` adopts it next to `DocumentStore` (docs/scaling.md, "Moving an app between
/// engines").
///
/// ## Transfer order
/// Documents are listed by collection path, then by document ID, each compared as UTF-8 bytes (`memcmp`, SQL's
/// `COLLATE "C"`/`BINARY`). Every engine lists the same documents in the same order, so an export of an imported
/// export is the same file.
public protocol DocumentTransfer: Sendable {
    /// Runs `body` with a reader of one snapshot of the whole database: writes committed after the snapshot was
    /// taken are not seen, however long `body` takes. The reader is only valid inside `body`.
    func withDocumentSnapshot<T>(_ body: (any DocumentSnapshot) throws -> T) throws -> T

    /// Stores `documents` (at most `CommitLimits.maxWrites`) as they are, with their create and update times and
    /// versions, in one atomic commit, keeping the single-field and composite indexes. Each gets a change-log entry
    /// (`created`, or `updated` when replacing) stamped with its own update time, under the change-log contract like
    /// any write, so listeners and other nodes' caches see it. An entry older than the change retention is pruned
    /// at the next pruning pass, as any old entry is (a follower then resynchronises as after any pruning). A
    /// document already at one of the paths fails the whole commit with 409 `ALREADY_EXISTS`, unless `replacing`,
    /// which overwrites it.
    func importDocuments(_ documents: [Document], replacing: Bool) throws
}

/// A consistent view of every document, for `DocumentTransfer.withDocumentSnapshot`.
public protocol DocumentSnapshot {
    /// How many documents the snapshot holds.
    func documentCount() throws -> Int64

    /// Up to `limit` documents following `position` (`nil`: from the first) in transfer order.
    func documents(after position: DocumentPath?, limit: Int) throws -> [Document]
}
