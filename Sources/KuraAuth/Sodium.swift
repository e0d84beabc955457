import CSodium
import KuraCore
import KuraModel

/// The libsodium primitives the module uses, over Swift byte arrays.
enum Sodium {
    /// SHA-256 of `bytes` (`crypto_hash_sha256`).
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        _ = SecureRandom.bytes(0)  // makes sure sodium_init ran
        var out = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_bytes()))
        bytes.withUnsafeBufferPointer { input in
            _ = crypto_hash_sha256(&out, input.baseAddress, UInt64(input.count))
        }
        return out
    }

    /// SHA-256 of the UTF-8 of `text`.
    static func sha256(_ text: String) -> [UInt8] { sha256(Array(text.utf8)) }

    /// An Ed25519 key pair derived from a 32-byte seed: (public key 32 bytes, secret key 64 bytes).
    static func signingKeyPair(seed: [UInt8]) -> (publicKey: [UInt8], secretKey: [UInt8]) {
        precondition(seed.count == Int(crypto_sign_seedbytes()))
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_sign_publickeybytes()))
        var secretKey = [UInt8](repeating: 0, count: Int(crypto_sign_secretkeybytes()))
        _ = crypto_sign_seed_keypair(&publicKey, &secretKey, seed)
        return (publicKey, secretKey)
    }

    /// A detached Ed25519 signature (64 bytes) of `message`.
    static func sign(_ message: [UInt8], secretKey: [UInt8]) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: Int(crypto_sign_bytes()))
        message.withUnsafeBufferPointer { input in
            _ = crypto_sign_detached(&signature, nil, input.baseAddress, UInt64(input.count), secretKey)
        }
        return signature
    }

    /// Whether `signature` is a valid Ed25519 signature of `message` by `publicKey`.
    static func verify(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == Int(crypto_sign_bytes()), publicKey.count == Int(crypto_sign_publickeybytes())
        else { return false }
        return message.withUnsafeBufferPointer { input in
            crypto_sign_verify_detached(signature, input.baseAddress, UInt64(input.count), publicKey) == 0
        }
    }
}
