import Foundation
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

    /// The public key as a JWK.
    var jwk: JSONValue {
        [
            "kty": "OKP", "crv": "Ed25519", "kid": .string(kid), "x": .string(Base64.encode(publicKey, .urlSafe)),
            "alg": "EdDSA", "use": "sig",
        ]
    }
}

/// The ID-token signing keys, kept in `<directory>/auth-signing-keys.json` (mode 0600): the first key signs, the
/// others (retired by `rotate()`) still verify tokens issued before the rotation.
final class SigningKeyRing: Sendable {
    let path: String
    private let retained: Int
    private let keys: Mutex<[SigningKey]>

    /// Loads the key file, creating it with a fresh key on first start.
    init(directory: String, retiredKeys: Int, now: Int64) throws {
        path = (directory as NSString).appendingPathComponent("auth-signing-keys.json")
        retained = max(0, retiredKeys)
        if FileManager.default.fileExists(atPath: path) {
            let loaded = try Self.load(path)
            keys = Mutex(loaded)
            // Tighten permissions that were loosened by hand.
            chmod(path, 0o600)
        } else {
            let key = SigningKey(seed: SecureRandom.bytes(32), createTime: now)
            try Self.save([key], to: path)
            keys = Mutex([key])
        }
    }

    /// The key that signs new tokens.
    var active: SigningKey { keys.withLock { $0[0] } }

    /// The key with `kid`, active or retired.
    func key(kid: String) -> SigningKey? { keys.withLock { $0.first { $0.kid == kid } } }

    /// All public keys, newest first, as a JWKS.
    var jwks: JSONValue { ["keys": .array(keys.withLock { $0.map(\.jwk) })] }

    /// Makes a new signing key; the previous ones verify only, and the oldest beyond the retention are dropped.
    func rotate(now: Int64) throws {
        try keys.withLock { keys in
            let updated = Array(
                ([SigningKey(seed: SecureRandom.bytes(32), createTime: now)] + keys).prefix(1 + retained))
            try Self.save(updated, to: path)
            keys = updated
        }
    }

    private static func load(_ path: String) throws -> [SigningKey] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let json = try JSONValue.parse(Array(data))
        let keys = json.objectValue?["keys"]?.arrayValue?.compactMap { entry -> SigningKey? in
            guard let object = entry.objectValue,
                let seed = object["seed"]?.stringValue.flatMap { Base64.decode($0, .urlSafe) },
                seed.count == 32, case .int(let created)? = object["createTime"]
            else { return nil }
            return SigningKey(seed: seed, createTime: created)
        }
        guard let keys, !keys.isEmpty else { throw APIError.unavailable("\(path) holds no usable signing key") }
        return keys
    }

    /// Writes atomically: a 0600 temporary file, fsync, rename.
    private static func save(_ keys: [SigningKey], to path: String) throws {
        let json: JSONValue = [
            "keys": .array(
                keys.map { ["seed": .string(Base64.encode($0.seed, .urlSafe)), "createTime": .int($0.createTime)] })
        ]
        let bytes = json.jsonBytes + [0x0A]
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw APIError.unavailable("cannot write \(temporary): errno \(errno)") }
        fchmod(fd, 0o600)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == bytes.count, synced == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw APIError.unavailable("cannot write \(path): errno \(errno)")
        }
    }
}
