import CSodium
import Dispatch
import KuraCore
import KuraModel
import Synchronization

/// Argon2id password hashing with libsodium's `crypto_pwhash_str_alg`: the stored value is the self-describing
/// encoded string (`$argon2id$v=19$m=…,t=…,p=1$salt$hash`), so parameters can change without a migration.
struct PasswordHasher: Sendable {
    let opsLimit: UInt64
    let memLimit: Int
    /// A hash of a random password with the current parameters: verified against when the email is unknown, so
    /// that case costs the same time as a wrong password.
    let dummyHash: String
    /// How many verifications ran and with which parameters, so tests can prove by structure (not by timing) that
    /// an unknown address costs what a wrong password costs.
    let verifications = VerificationLog()

    init(opsLimit: UInt64, memLimit: Int) throws {
        self.opsLimit = opsLimit
        self.memLimit = memLimit
        dummyHash = try Self.hash(SecureRandom.hex(16), opsLimit: opsLimit, memLimit: memLimit)
    }

    /// The encoded argon2id hash of `password`.
    func hash(_ password: String) throws -> String {
        try Self.hash(password, opsLimit: opsLimit, memLimit: memLimit)
    }

    private static func hash(_ password: String, opsLimit: UInt64, memLimit: Int) throws -> String {
        var out = [CChar](repeating: 0, count: Int(crypto_pwhash_strbytes()))
        let bytes = Array(password.utf8)
        let rc = Self.withChars(bytes) { chars, count in
            crypto_pwhash_str_alg(&out, chars, UInt64(count), opsLimit, memLimit, crypto_pwhash_alg_argon2id13())
        }
        // Fails only when memory cannot be allocated; that is a server fault, not the caller's.
        guard rc == 0 else { throw APIError.unavailable("password hashing failed (out of memory)") }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` matches the encoded `hash`.
    func verify(_ password: String, against hash: String) -> Bool {
        verifications.record(parameters: Self.parameters(of: hash))
        return Self.withChars(Array(password.utf8)) { chars, count in
            crypto_pwhash_str_verify(hash, chars, UInt64(count)) == 0
        }
    }

    /// Passes the bytes as a non-NULL C string pointer (a NUL is appended, so even "" has an address) and length.
    private static func withChars<T>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>, Int) -> T) -> T {
        let terminated = bytes + [0]
        return terminated.withUnsafeBufferPointer { input in
            input.withMemoryRebound(to: CChar.self) { body($0.baseAddress!, bytes.count) }
        }
    }

    /// The cost part of an encoded hash, `m=65536,t=2,p=1`; empty when it has none.
    static func parameters(of hash: String) -> Substring {
        let fields = hash.split(separator: "$")
        return fields.first { $0.hasPrefix("m=") } ?? ""
    }

    /// Whether `hash` was made with other parameters than the current ones (and should be replaced).
    func needsRehash(_ hash: String) -> Bool {
        crypto_pwhash_str_needs_rehash(hash, opsLimit, memLimit) != 0
    }
}

/// Counts the argon2id verifications a `PasswordHasher` ran and remembers the cost parameters of the last one.
/// Tests may also hold verifications at their start (`hold()`/`release()`) to observe the server while one is in
/// progress.
final class VerificationLog: Sendable {
    private struct State {
        var count = 0
        var lastParameters = ""
        var gate: DispatchSemaphore? = nil
    }
    private let state = Mutex(State())

    func record(parameters: Substring) {
        let gate = state.withLock { state -> DispatchSemaphore? in
            state.count += 1
            state.lastParameters = String(parameters)
            return state.gate
        }
        if let gate {
            gate.wait()
            gate.signal()  // let the next held verification through too, once released
        }
    }

    /// Verifications so far (counted when they start).
    var count: Int { state.withLock { $0.count } }
    /// `m=…,t=…,p=…` of the hash verified last.
    var lastParameters: String { state.withLock { $0.lastParameters } }

    /// Verifications that start from now on wait until `release()`.
    func hold() { state.withLock { $0.gate = DispatchSemaphore(value: 0) } }

    /// Lets held verifications (and later ones) run.
    func release() {
        let gate = state.withLock { state -> DispatchSemaphore? in
            defer { state.gate = nil }
            return state.gate
        }
        gate?.signal()
    }
}
