import KuraCore
import KuraModel
import Synchronization

/// One Ed25519 signing key: `kid` is derived from the public key.
struct SigningKey: Sendable {
    let kid: String
    let seed: [UInt8]
    let publicKey: [UInt8]
    let secretKey: [UInt8]
    let createTime: Int64

    init(seed: [UInt8], createTime: Int64) {
        let pair = Sodium.signingKeyPair(seed: seed)
        self.seed = seed
        self.publicKey = pair.publicKey
        self.secretKey = pair.secretKey
        self.createTime = createTime
        kid = Base64.encode(Sodium.sha256(pair.publicKey).prefix(12), .urlSafe)
    }

    init(_ stored: StoredSigningKey) { self.init(seed: stored.seed, createTime: stored.createTime) }

    /// The public key as a JWK.
    var jwk: JSONValue {
        [
            "kty": "OKP", "crv": "Ed25519", "kid": .string(kid), "x": .string(Base64.encode(publicKey, .urlSafe)),
            "alg": "EdDSA", "use": "sig",
        ]
    }
}

/// The ID-token signing keys in memory, loaded from a `SigningKeyStore`: the first key signs, the others (retired
/// by `rotate()`) still verify tokens issued before the rotation. A token signed by a key this ring does not know
/// makes it read the store again (at most once per `reloadInterval`), so a rotation made by another process or node
/// is picked up on the first token it signed.
final class SigningKeyRing: Sendable {
    /// Shortest time between two reads of the store caused by unknown key ids, in seconds.
    static let reloadInterval = 1.0

    private let store: any SigningKeyStore
    private let retained: Int
    private let clock: AuthClock
    private let state: Mutex<State>

    private struct State {
        var keys: [SigningKey]
        /// When the store was last read because of an unknown key id (`clock` seconds).
        var lastReload = -Double.infinity
    }

    /// Loads the keys, storing a fresh first key when the store holds none.
    init(store: any SigningKeyStore, retiredKeys: Int, clock: AuthClock) throws {
        self.store = store
        self.clock = clock
        retained = max(0, retiredKeys)
        let initial = StoredSigningKey(seed: SecureRandom.bytes(32), createTime: Int64(clock.now()))
        let keys = try store.loadOrCreate(initial: initial).map(SigningKey.init)
        guard !keys.isEmpty else { throw APIError.unavailable("the signing-key store holds no usable key") }
        state = Mutex(State(keys: keys))
    }

    /// The key that signs new tokens.
    var active: SigningKey { state.withLock { $0.keys[0] } }

    /// The key with `kid`, active or retired; reads the store again when the key is unknown (see the type).
    func key(kid: String) -> SigningKey? {
        if let known = state.withLock({ $0.keys.first { $0.kid == kid } }) { return known }
        let now = clock.now()
        // Read under the lock (at most once per interval), so that a rotation in this process cannot be overwritten
        // by an older list read at the same time.
        return state.withLock { state in
            guard now - state.lastReload >= Self.reloadInterval || now < state.lastReload else { return nil }
            state.lastReload = now
            guard let stored = try? store.load(), !stored.isEmpty else { return nil }
            state.keys = stored.map(SigningKey.init)
            return state.keys.first { $0.kid == kid }
        }
    }

    /// All public keys, newest first, as a JWKS.
    var jwks: JSONValue { ["keys": .array(state.withLock { $0.keys.map(\.jwk) })] }

    /// Reads the store again (another node rotated the keys); keeps the keys in memory when the store cannot be
    /// read or holds none.
    func reload() {
        state.withLock { state in
            guard let stored = try? store.load(), !stored.isEmpty else { return }
            state.keys = stored.map(SigningKey.init)
        }
    }

    /// Makes a new signing key; the previous ones verify only, and the oldest beyond the retention are dropped.
    func rotate(now: Int64) throws {
        let key = StoredSigningKey(seed: SecureRandom.bytes(32), createTime: now)
        // Under the lock, so that of two rotations in this process the later one's list is the one kept.
        try state.withLock { $0.keys = try store.rotate(to: key, retaining: retained).map(SigningKey.init) }
    }
}
