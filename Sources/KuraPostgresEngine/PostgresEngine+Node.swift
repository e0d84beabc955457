import KuraAuth
import KuraEngine
import KuraMail
import KuraStore

extension PostgresEngine: NodeEngine {
    /// The `accounts`, `sessions`, `rotated_refresh_tokens` and `action_codes` tables of `store.url`.
    public func openAccounts() throws -> any AccountStore { try PostgresAccountStore(database: database) }
    /// The `signing_keys` table of `store.url`.
    public func openSigningKeys() throws -> any SigningKeyStore { try PostgresSigningKeyStore(database: database) }
    /// The `outbox` table of `store.url`.
    public func openOutbox() throws -> any OutboxStore { try PostgresOutboxStore(database: database) }
    /// `LISTEN`/`NOTIFY` on the database, the rules and admin key in it (Cluster/).
    public func openCluster(log: @escaping @Sendable (String) -> Void) throws -> any ClusterChannel {
        try database.prepared()
        return PostgresClusterChannel(database: database, node: NodeName.make(), log: log)
    }
    /// `pg_database_size` of the database `store.url` names (every node shares it).
    public func storeSizeBytes() throws -> Int64 { try database.sizeBytes() }
}
