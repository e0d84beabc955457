import Foundation
import KuraCore
import KuraModel
import Synchronization
import Testing

@testable import KuraAuth
@testable import KuraSQLiteEngine

/// Signing keys through the `SigningKeyStore` seam: data directories from before it keep their keys, and a rotation
/// made by another process is picked up on the first token it signed.
@Suite struct SigningKeyStoreTests {
    /// A key file as every Kura before the seam wrote it: seed 0x07 × 32.
    static let existingFile =
        #"{"keys":[{"seed":"BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc","createTime":1700000000}]}"# + "\n"

    @Test func anExistingKeyFileIsUsedAsItIs() throws {
        let directory = NSTemporaryDirectory() + "kura-keys-\(SecureRandom.hex(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/auth-signing-keys.json"
        try Data(Self.existingFile.utf8).write(to: URL(fileURLWithPath: path))
        let clock = TestClock()
        let auth = try AuthService(directory: directory, configuration: .lowCostForTesting, clock: clock.authClock)

        let pair = Sodium.signingKeyPair(seed: Array(repeating: 7, count: 32))
        let jwks = try #require(auth.jwks().objectValue?["keys"]?.arrayValue)
        #expect(jwks.count == 1)
        #expect(jwks.first?.objectValue?["x"] == .string(Base64.encode(pair.publicKey, .urlSafe)))
        let token = try auth.signUp(email: "ann@example.com", password: "secret-pw").idToken
        let encodedHeader = try #require(token.split(separator: ".").first)
        let header = try JSONValue.parse(try #require(Base64.decode(encodedHeader, .urlSafe)))
        #expect(header.objectValue?["kid"] == jwks.first?.objectValue?["kid"])
        _ = try auth.verifyIDToken(token)
        // Opening did not rewrite the file; a rotation keeps the old key as the retired one.
        #expect(FileManager.default.contents(atPath: path) == Data(Self.existingFile.utf8))
        try auth.rotateSigningKey()
        let keys = try SigningKeyFile(directory: directory).load()
        #expect(
            keys.count == 2
                && keys[1] == StoredSigningKey(seed: Array(repeating: 7, count: 32), createTime: 1_700_000_000))
    }

    @Test func aRotationByAnotherProcessIsPickedUpOnItsFirstToken() throws {
        let f = try Fixture()
        let other = try f.reopen()
        try other.rotateSigningKey()
        f.clock.advance(1)
        let token = try other.signUp(email: "bob@example.com", password: "secret-pw").idToken
        // Before the seam this was INVALID_ID_TOKEN until a restart.
        #expect(try f.auth.verifyIDToken(token).uid == other.verifyIDToken(token).uid)
        #expect(f.auth.jwks() == other.jwks())
        #expect(f.auth.keys.active.kid == other.keys.active.kid)
    }

    /// Counts `load()` calls.
    final class CountingKeys: SigningKeyStore {
        let keys = Mutex<[StoredSigningKey]>([])
        let loads = Mutex(0)
        func loadOrCreate(initial: StoredSigningKey) throws -> [StoredSigningKey] {
            keys.withLock { keys in
                if keys.isEmpty { keys = [initial] }
                return keys
            }
        }
        func load() throws -> [StoredSigningKey] {
            loads.withLock { $0 += 1 }
            return keys.withLock { $0 }
        }
        func rotate(to key: StoredSigningKey, retaining: Int) throws -> [StoredSigningKey] {
            keys.withLock { keys in
                keys = Array(([key] + keys).prefix(1 + retaining))
                return keys
            }
        }
    }

    @Test func unknownKeyIDsReadTheStoreAtMostOncePerSecond() throws {
        let directory = NSTemporaryDirectory() + "kura-keys-\(SecureRandom.hex(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = TestClock()
        let keys = CountingKeys()
        let auth = try AuthService(
            store: SQLiteAccountStore(directory: directory), keys: keys, configuration: .lowCostForTesting,
            clock: clock.authClock)
        let token = try auth.signUp(email: "ann@example.com", password: "secret-pw").idToken
        let pieces = token.split(separator: ".").map(String.init)
        let forged =
            Base64.encode(#"{"alg":"EdDSA","typ":"JWT","kid":"unknown"}"#.utf8, .urlSafe) + "." + pieces[1] + "."
            + pieces[2]
        for _ in 0..<3 { expectError(.invalidIDToken, 401) { _ = try auth.verifyIDToken(forged) } }
        #expect(keys.loads.withLock { $0 } == 1)
        clock.advance(SigningKeyRing.reloadInterval)
        expectError(.invalidIDToken, 401) { _ = try auth.verifyIDToken(forged) }
        #expect(keys.loads.withLock { $0 } == 2)
        // Known keys never read the store.
        _ = try auth.verifyIDToken(token)
        #expect(keys.loads.withLock { $0 } == 2)
    }
}
