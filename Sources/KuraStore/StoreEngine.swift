/// A storage engine, chosen by `store.engine`: what a node needs to open its document database, copy it, and
/// close it, without naming the engine's types. `SQLiteEngine` (KuraSQLiteEngine) is the embedded default;
/// `PostgresEngine` (KuraPostgresEngine) is shared by several nodes (docs/scaling.md).
///
/// Every engine's document store must pass the conformance suite (Tests/KuraStoreTests), including the change-log
/// contract stated on `DocumentStore.changes(after:limit:)`.
public protocol StoreEngine: Sendable {
    /// The value of `store.engine` that selects this engine.
    static var name: String { get }

    /// The engine for `configuration`, keeping its files (if it has any) in `dataDirectory`. Opens nothing yet.
    init(configuration: StoreConfiguration, dataDirectory: String)

    /// Where the documents are, for messages: a file path, or a database URL without its password.
    var documentsLocation: String { get }

    /// Whether a document database exists yet (`false`: nothing was ever stored, a new data directory).
    func holdsDocuments() throws -> Bool

    /// Opens (creating if needed) the document database. `log` receives index builds and missing-index reports.
    func openDocuments(log: (@Sendable (String) -> Void)?) throws -> any EngineDocumentStore

    /// `kura backup FILE`: writes a consistent copy of the document database to `file`, safe while a server is
    /// writing to it, without taking the data directory's lock.
    func backupDocuments(to file: String) throws
}

/// A document database opened by a `StoreEngine`: the store itself, its declared composite indexes, and `close`.
public protocol EngineDocumentStore: DocumentStore, CompositeIndexing {
    /// Finishes queued writes and releases the engine's threads and connections; later writes fail with 503
    /// `UNAVAILABLE`. Called once, when the server stops.
    func close()
}
