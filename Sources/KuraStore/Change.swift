/// One entry of the change log: a committed write of one document.
public struct Change: Sendable, Equatable {
    /// What happened to the document.
    public enum Kind: Int, Sendable {
        case created = 1
        case updated = 2
        case deleted = 3
    }

    /// Global, strictly increasing position in the log (assigned in commit order).
    public var sequence: Int64
    /// The document changed.
    public var path: DocumentPath
    /// Created, updated or deleted.
    public var kind: Kind
    /// The document's version after the change (0 for deletes).
    public var version: Int64
    /// Commit time in microseconds since the Unix epoch.
    public var time: Int64

    /// Creates a change entry.
    public init(sequence: Int64, path: DocumentPath, kind: Kind, version: Int64, time: Int64) {
        self.sequence = sequence
        self.path = path
        self.kind = kind
        self.version = version
        self.time = time
    }
}
