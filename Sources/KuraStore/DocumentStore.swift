import KuraCore

/// The document database behind `/api/docs`, `/api/query` and `/api/commit`. (Issue 3 fills this in.)
public protocol DocumentStore: Sendable {}
