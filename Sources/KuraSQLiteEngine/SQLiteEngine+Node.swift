import KuraAuth
import KuraEngine
import KuraMail
import KuraStore

extension SQLiteEngine: NodeEngine {
    /// `<data>/accounts.db`.
    public func openAccounts() throws -> any AccountStore { try SQLiteAccountStore(directory: dataDirectory) }
    /// `<data>/auth-signing-keys.json`.
    public func openSigningKeys() throws -> any SigningKeyStore { SigningKeyFile(directory: dataDirectory) }
    /// `<data>/mail.db`.
    public func openOutbox() throws -> any OutboxStore { try SQLiteOutboxStore(directory: dataDirectory) }
    /// One node per data directory (`DataDirectoryLock`): nobody to tell; the rules and the admin key stay in the
    /// data directory.
    public func openCluster(log: @escaping @Sendable (String) -> Void) throws -> any ClusterChannel {
        LocalClusterChannel()
    }
    /// The database files in the data directory, with their `-wal` and `-shm` files.
    public func storeSizeBytes() throws -> Int64 { SQLiteInspection.databaseBytes(in: dataDirectory) }
}
