/// One ID-token signing key as stored: the Ed25519 seed (the key pair and `kid` derive from it) and when it was made.
public struct StoredSigningKey: Sendable, Equatable {
    /// The 32-byte Ed25519 seed.
    public var seed: [UInt8]
    /// Seconds since the Unix epoch.
    public var createTime: Int64

    public init(seed: [UInt8], createTime: Int64) {
        self.seed = seed
        self.createTime = createTime
    }
}

/// Where the ID-token signing keys live, shared by every process (and, with a shared engine, every node) that
/// issues or verifies tokens. The keys are an ordered list, active key first; the others are retired keys that
/// still verify the tokens they signed. Implementations are thread-safe, and each method is atomic across
/// processes: two nodes starting at once end up with one first key, and two rotations at once both land.
public protocol SigningKeyStore: Sendable {
    /// The stored keys, active first. When none is stored yet, stores `initial` as the only key and returns it —
    /// unless another process stored a first key meanwhile, whose keys are then returned instead.
    func loadOrCreate(initial: StoredSigningKey) throws -> [StoredSigningKey]

    /// The keys as stored now, active first (picks up a rotation made by another process).
    func load() throws -> [StoredSigningKey]

    /// Makes `key` the active key, keeps at most `retaining` of the keys that were stored before it (newest
    /// first), and returns the keys as stored afterwards.
    func rotate(to key: StoredSigningKey, retaining: Int) throws -> [StoredSigningKey]
}
