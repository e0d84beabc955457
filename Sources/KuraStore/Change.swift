import KuraModel

/// One entry of the change log: a committed write of one document, with the document as it was before and after.
///
/// Carrying both states makes the log self-sufficient for listeners: whether a document entered, left or moved
/// within a query's results is decided from the entry alone, also when replaying after a reconnect, long after the
/// document has changed again.
public struct Change: Sendable, Equatable {
    /// What happened to the document.
    public enum Kind: Int, Sendable {
        case created = 1
        case updated = 2
        case deleted = 3
    }

    /// Global, strictly increasing position in the log, assigned in commit order and visible in that order (the
    /// change-log contract on `DocumentStore`).
    public var sequence: Int64
    /// The document changed.
    public var path: DocumentPath
    /// Created, updated or deleted.
    public var kind: Kind
    /// The document's version after the change (0 for deletes).
    public var version: Int64
    /// Commit time in microseconds since the Unix epoch.
    public var time: Int64
    /// The document before the write; `nil` for creates.
    public var before: Document?
    /// The document after the write; `nil` for deletes.
    public var after: Document?

    /// Creates a change entry.
    public init(
        sequence: Int64, path: DocumentPath, kind: Kind, version: Int64, time: Int64, before: Document? = nil,
        after: Document? = nil
    ) {
        self.sequence = sequence
        self.path = path
        self.kind = kind
        self.version = version
        self.time = time
        self.before = before
        self.after = after
    }
}
