import KuraAuth
import KuraMail
import KuraStore

/// A storage engine as a node uses it: the document database (`StoreEngine`, KuraStore), and besides it the
/// accounts (sessions, action codes), the ID-token signing keys, the mail outbox and what the nodes on the engine
/// tell each other, with the settings only this engine reads. Every engine's stores pass the suites in
/// Tests/KuraStoreTests and Tests/KuraEngineConformanceTests; a second node on the same engine shares them.
///
/// An engine is a target of its own (`KuraSQLiteEngine`, `KuraPostgresEngine`) with a type conforming to this
/// protocol; `StoreEngines.all` (KuraEngines) lists the engines a build has.
public protocol NodeEngine: StoreEngine {
    /// The settings only this engine reads (`store.*` keys beside the ones every engine honours), in the order
    /// `kura --help` lists them. Their values reach the engine in `StoreConfiguration`, under the engine's own
    /// `EngineSettings` type.
    static var settings: [EngineSetting] { get }
    /// The accounts, sessions and action codes (not cached; the node puts `CachedAccountStore` in front).
    func openAccounts() throws -> any AccountStore
    /// The signing keys every node signs and verifies ID tokens with.
    func openSigningKeys() throws -> any SigningKeyStore
    /// The mail outbox every node's delivery worker takes mails from.
    func openOutbox() throws -> any OutboxStore
    /// What this node tells the other nodes on the engine and hears from them, and the state they share (rules,
    /// admin key); a `LocalClusterChannel` when the node is alone.
    func openCluster(log: @escaping @Sendable (String) -> Void) throws -> any ClusterChannel
    /// The bytes the engine's databases take on disk (`kura_store_size_bytes`).
    func storeSizeBytes() throws -> Int64
}
