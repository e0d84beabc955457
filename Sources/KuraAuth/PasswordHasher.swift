import CSodium
import KuraCore
import KuraModel
import Synchronization

/// Argon2id password hashing with libsodium's `crypto_pwhash_str_alg`: the stored value is the self-describing
/// encoded string (`$argon2id$v=19$m=…,t=…,p=1$salt$hash`), so parameters can change without a migration.
///
/// A stored hash is verified only when its own parameters are within `bounds` (its cost is what it says, not what
/// the server is set to); outside them `verify` answers `.refused` after the same work as a wrong password.
struct PasswordHasher: Sendable {
    let opsLimit: UInt64
    let memLimit: Int
    let bounds: Argon2Bounds
    /// A hash of a random password with the current parameters: verified against when the email is unknown, so
    /// that case costs the same time as a wrong password.
    let dummyHash: String
    /// How many verifications ran and with which parameters, so tests can prove by structure (not by timing) that
    /// an unknown address costs what a wrong password costs.
    let verifications = VerificationLog()
    /// Bounds the hashes computed at once, each holding `memLimit` bytes.
    let gate: PasswordHashGate

    /// Throws `Argon2HashProblem` when the server's own parameters make hashes outside `bounds`. `concurrency`:
    /// hashes computed at once (`AuthConfiguration.passwordHashConcurrency`; 0: the number of cores).
    init(opsLimit: UInt64, memLimit: Int, bounds: Argon2Bounds = Argon2Bounds(), concurrency: Int = 0) throws {
        self.opsLimit = opsLimit
        self.memLimit = memLimit
        self.bounds = bounds
        gate = PasswordHashGate(limit: concurrency > 0 ? concurrency : PasswordHashGate.coreCount)
        dummyHash = try Self.hash(SecureRandom.hex(16), opsLimit: opsLimit, memLimit: memLimit)
        if let problem = bounds.problem(with: dummyHash) {
            throw Argon2HashProblem(
                "auth.passwordOpsLimit and auth.passwordMemLimit make hashes the server would refuse to verify: a "
                    + "hash with them \(problem); raise the auth.argon2Max* bound or lower the cost")
        }
    }

    /// The encoded argon2id hash of `password`.
    func hash(_ password: String) throws -> String {
        try gate.run { try Self.hash(password, opsLimit: opsLimit, memLimit: memLimit) }
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

    /// What checking `password` against the encoded `hash` found.
    enum Outcome: Equatable {
        case match
        case mismatch
        /// Not verified: the hash's parameters are outside `bounds` (the sentence says which); the same work as a
        /// wrong password was done instead.
        case refused(String)
    }

    /// Whether `password` matches the encoded `hash`; a hash outside `bounds` is never given to argon2.
    func verify(_ password: String, against hash: String) -> Outcome {
        if let problem = bounds.problem(with: hash) {
            _ = argon2Verify(password, against: dummyHash)
            return .refused(problem)
        }
        return argon2Verify(password, against: hash) ? .match : .mismatch
    }

    private func argon2Verify(_ password: String, against hash: String) -> Bool {
        verifications.record(parameters: Self.parameters(of: hash))
        return gate.run {
            Self.withChars(Array(password.utf8)) { chars, count in
                crypto_pwhash_str_verify(hash, chars, UInt64(count)) == 0
            }
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

/// Lets at most `limit` password hashes be computed at once; the others wait (on their worker thread, which they
/// would otherwise spend hashing) until one finishes. Argon2id is CPU-bound and holds `memLimit` bytes while it
/// runs, so hashes beyond the cores only add memory: with the worker pool's max(4, 2 × cores) threads all signing
/// in, half the 64 MiB buffers.
final class PasswordHashGate: @unchecked Sendable {
    // `@unchecked`: `running` and `mostRunning` are read and written with `condition`'s mutex held.
    let limit: Int
    private let condition = MonotonicCondition()
    /// Guarded by `condition`'s mutex.
    private var running = 0
    private var mostRunning = 0

    init(limit: Int) { self.limit = max(1, limit) }

    /// Runs `body` once fewer than `limit` others are running.
    func run<T>(_ body: () throws -> T) rethrows -> T {
        condition.withLock {
            while running >= limit { condition.wait() }
            running += 1
            mostRunning = max(mostRunning, running)
        }
        defer {
            condition.withLock { running -= 1 }
            condition.signal()
        }
        return try body()
    }

    /// The most hashes that have run at once so far (for tests).
    var peak: Int { condition.withLock { mostRunning } }

    /// Online processor count.
    static var coreCount: Int {
        let n = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return n > 0 ? n : 1
    }
}

/// Counts the argon2id verifications a `PasswordHasher` ran and remembers the cost parameters of the last one.
/// Tests may also hold verifications at their start (`hold()`/`release()`) to observe the server while one is in
/// progress.
final class VerificationLog: Sendable {
    private struct State {
        var count = 0
        var lastParameters = ""
        var gate: Wakeup? = nil
    }
    private let state = Mutex(State())

    func record(parameters: Substring) {
        let gate = state.withLock { state -> Wakeup? in
            state.count += 1
            state.lastParameters = String(parameters)
            return state.gate
        }
        if let gate {
            gate.wait()
            gate.raise()  // let the next held verification through too, once released
        }
    }

    /// Verifications so far (counted when they start).
    var count: Int { state.withLock { $0.count } }
    /// `m=…,t=…,p=…` of the hash verified last.
    var lastParameters: String { state.withLock { $0.lastParameters } }

    /// Verifications that start from now on wait until `release()`.
    func hold() { state.withLock { $0.gate = Wakeup() } }

    /// Lets held verifications (and later ones) run.
    func release() {
        let gate = state.withLock { state -> Wakeup? in
            defer { state.gate = nil }
            return state.gate
        }
        gate?.raise()
    }
}

#if canImport(Glibc)
    import Glibc
#endif
