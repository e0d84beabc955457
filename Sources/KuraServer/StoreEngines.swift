import KuraAuth
import KuraMail
import KuraPostgresEngine
import KuraSQLiteEngine
import KuraStore

/// What a node opens through its engine besides the document database: the accounts (sessions, action codes), the
/// ID-token signing keys and the mail outbox. Every engine's stores pass the suites in
/// Tests/KuraEngineConformanceTests; a second node on the same engine shares them.
protocol NodeEngine: StoreEngine {
    /// The accounts, sessions and action codes (not cached; the node puts `CachedAccountStore` in front).
    func openAccounts() throws -> any AccountStore
    /// The signing keys every node signs and verifies ID tokens with.
    func openSigningKeys() throws -> any SigningKeyStore
    /// The mail outbox every node's delivery worker takes mails from.
    func openOutbox() throws -> any OutboxStore
    /// What this node tells the other nodes on the engine and hears from them, and the state they share (rules,
    /// admin key); a local channel when the node is alone (Cluster/StoreEngines+Cluster.swift).
    func openCluster(log: @escaping @Sendable (String) -> Void) throws -> any ClusterChannel
    /// The bytes the engine's databases take on disk (`kura_store_size_bytes`).
    func storeSizeBytes() throws -> Int64
}

/// The storage engines `store.engine` can name. A new engine is one more entry here (and its target in
/// Package.swift, and its `NodeEngine` conformance below); nothing else in the server names an engine's types.
enum StoreEngines {
    /// Every engine, the default first.
    static let all: [any NodeEngine.Type] = [SQLiteEngine.self, PostgresEngine.self]

    /// The engines' names, for help and error messages (`sqlite, postgres`).
    static var names: String { all.map { $0.name }.joined(separator: ", ") }

    /// The engine called `name`; a configuration error naming the engines there are otherwise.
    static func named(_ name: String) throws -> any NodeEngine.Type {
        guard let engine = all.first(where: { $0.name == name }) else {
            throw ConfigurationError("store.engine: unknown engine '\(name)'; the engines are: \(names)")
        }
        return engine
    }

    /// The engine `configuration.store.engine` names, for `configuration.dataDirectory`.
    static func engine(for configuration: KuraConfiguration) throws -> any NodeEngine {
        try named(configuration.store.engine).init(
            configuration: configuration.store, dataDirectory: configuration.dataDirectory)
    }
}

extension SQLiteEngine: NodeEngine {
    /// `<data>/accounts.db`.
    func openAccounts() throws -> any AccountStore { try SQLiteAccountStore(directory: dataDirectory) }
    /// `<data>/auth-signing-keys.json`.
    func openSigningKeys() throws -> any SigningKeyStore { SigningKeyFile(directory: dataDirectory) }
    /// `<data>/mail.db`.
    func openOutbox() throws -> any OutboxStore { try SQLiteOutboxStore(directory: dataDirectory) }
    /// The database files in the data directory, with their `-wal` and `-shm` files.
    func storeSizeBytes() throws -> Int64 { ProcessStats.databaseBytes(in: dataDirectory) }
}

extension PostgresEngine: NodeEngine {
    /// The `accounts`, `sessions`, `rotated_refresh_tokens` and `action_codes` tables of `store.url`.
    func openAccounts() throws -> any AccountStore { try PostgresAccountStore(database: database) }
    /// The `signing_keys` table of `store.url`.
    func openSigningKeys() throws -> any SigningKeyStore { try PostgresSigningKeyStore(database: database) }
    /// The `outbox` table of `store.url`.
    func openOutbox() throws -> any OutboxStore { try PostgresOutboxStore(database: database) }
    /// `pg_database_size` of the database `store.url` names (every node shares it).
    func storeSizeBytes() throws -> Int64 {
        try database.sizeBytes()
    }
}
