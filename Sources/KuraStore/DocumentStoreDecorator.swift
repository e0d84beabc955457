import KuraModel

/// A `DocumentStore` wrapped around another that adds behaviour to some calls (a cache, a notification) and
/// passes the rest on: conformers implement what they change, and the reads below go to `base` unless they do.
public protocol DocumentStoreDecorator: DocumentStore {
    /// The store the calls go on to.
    var base: any DocumentStore { get }
}

extension DocumentStoreDecorator {
    public func get(_ path: DocumentPath) throws -> Document? { try base.get(path) }
    public func query(_ query: StructuredQuery) throws -> QueryResult { try base.query(query) }
    public func count(_ query: StructuredQuery) throws -> Int64 { try base.count(query) }
    public func changes(after sequence: Int64, limit: Int) throws -> [Change] {
        try base.changes(after: sequence, limit: limit)
    }
    public func changedPaths(after sequence: Int64, limit: Int) throws -> [ChangedPath] {
        try base.changedPaths(after: sequence, limit: limit)
    }
    public func oldestRetainedSequence() throws -> Int64 { try base.oldestRetainedSequence() }
    public func latestSequence() throws -> Int64 { try base.latestSequence() }
}
