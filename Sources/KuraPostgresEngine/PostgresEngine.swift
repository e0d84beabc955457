import KuraCore
import KuraModel
import KuraPostgres
import KuraStore

/// The shared engine (`store.engine = postgres`): several stateless nodes on one PostgreSQL database
/// (`store.url`), docs/scaling.md. Documents (Documents/), accounts and sessions (Accounts/), signing keys (Keys/),
/// the mail outbox (Outbox/) and what nodes tell each other (Cluster/) live in the database; the data directory
/// keeps nothing another node needs.
public struct PostgresEngine: StoreEngine {
    public static let name = "postgres"

    /// The settings the engine was made with.
    public let configuration: StoreConfiguration
    /// This node's data directory (nothing shared lives there in this mode).
    public let dataDirectory: String
    /// The database: one connection pool per node, the schema migrated on first use.
    public let database: PostgresDatabase

    public init(configuration: StoreConfiguration, dataDirectory: String) {
        self.configuration = configuration
        self.dataDirectory = dataDirectory
        database = PostgresDatabase(configuration.postgres)
    }

    public var documentsLocation: String { PostgresDatabase.redacted(configuration.postgres.url) }

    public func holdsDocuments() throws -> Bool { try database.holdsDocuments() }

    public func openDocuments(log: (@Sendable (String) -> Void)?) throws -> any EngineDocumentStore {
        try PostgresDocumentStore(
            database: database,
            configuration: .init(
                changeRetention: configuration.changeRetentionSeconds * 1_000_000,
                maxScanRows: configuration.maxScanRows > 0 ? configuration.maxScanRows : nil,
                autoCreateIndexes: configuration.autoCreateIndexes, log: log))
    }

    public func backupDocuments(to file: String) throws {
        throw APIError.unavailable(
            "kura backup copies the SQLite files of a data directory; on PostgreSQL back up the database with "
                + "pg_dump (pg_dump --format=custom --file=\(file).dump \(documentsLocation); docs/reliability.md, "
                + "\"Backup, restore and doctor\"), or export the app with kura export (docs/scaling.md)")
    }
}
