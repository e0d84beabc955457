/// The cost and sizes written in an encoded argon2id hash, `$argon2id$v=19$m=65536,t=2,p=1$<salt>$<hash>` (the form
/// libsodium's `crypto_pwhash_str` writes and other argon2 libraries share), read strictly and without computing
/// anything.
public struct Argon2Hash: Sendable, Equatable {
    /// `v=`: the argon2 version (19, that is 0x13, is the only one libsodium verifies).
    public var version: UInt64
    /// `m=`: memory in KiB.
    public var memoryKiB: UInt64
    /// `t=`: passes over the memory.
    public var iterations: UInt64
    /// `p=`: lanes.
    public var parallelism: UInt64
    /// Bytes of the decoded salt.
    public var saltBytes: Int
    /// Bytes of the decoded hash.
    public var hashBytes: Int

    /// Reads `encoded`; throws a sentence saying what is malformed.
    public init(encoded: String) throws(Argon2HashProblem) {
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].isEmpty, parts[1] == "argon2id", parts[2].hasPrefix("v=") else {
            throw Argon2HashProblem("is not an argon2id hash ($argon2id$v=19$m=…,t=…,p=…$salt$hash)")
        }
        guard let version = Self.decimal(parts[2].dropFirst(2)) else {
            throw Argon2HashProblem("has a malformed version (v=19 expected)")
        }
        let costs = parts[3].split(separator: ",", omittingEmptySubsequences: false)
        guard costs.count == 3, costs[0].hasPrefix("m="), costs[1].hasPrefix("t="), costs[2].hasPrefix("p="),
            let memory = Self.decimal(costs[0].dropFirst(2)), let iterations = Self.decimal(costs[1].dropFirst(2)),
            let parallelism = Self.decimal(costs[2].dropFirst(2))
        else {
            throw Argon2HashProblem("has malformed parameters (m=…,t=…,p=… with decimal numbers expected)")
        }
        guard let salt = Self.base64Length(parts[4]), let hash = Self.base64Length(parts[5]) else {
            throw Argon2HashProblem("has a salt or hash that is not unpadded base64")
        }
        self.version = version
        memoryKiB = memory
        self.iterations = iterations
        self.parallelism = parallelism
        saltBytes = salt
        hashBytes = hash
    }

    /// 1–10 decimal digits, at most `UInt32.max` (argon2 keeps every parameter in 32 bits).
    private static func decimal(_ text: Substring) -> UInt64? {
        guard (1...10).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let value = UInt64(text), value <= UInt64(UInt32.max)
        else { return nil }
        return value
    }

    /// The byte count of unpadded standard base64 text, or nil when it is not that.
    private static func base64Length(_ text: Substring) -> Int? {
        let count = text.utf8.count
        guard count > 0, count % 4 != 1,
            text.utf8.allSatisfy({
                (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2B
                    || $0 == 0x2F
            })
        else { return nil }
        return count * 3 / 4
    }
}

/// What is wrong with an encoded argon2id hash: a sentence that follows "passwordHash".
public struct Argon2HashProblem: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The costs Kura accepts in a stored argon2id hash (settings `auth.argon2MaxMemoryKiB`, `auth.argon2MaxIterations`,
/// `auth.argon2MaxParallelism`). Verifying a hash costs what its own parameters say, whatever the server's
/// settings are, so a hash from an import (or an older version) could otherwise hold a worker for as long as its
/// author chose; `kura import` refuses a hash outside them and sign-in never verifies one.
public struct Argon2Bounds: Sendable, Equatable {
    /// Salt sizes accepted, in bytes (argon2 needs at least 8; libsodium writes 16).
    public static let saltBytes = 8...64
    /// Hash sizes accepted, in bytes (libsodium verifies 16 and more; it writes 32).
    public static let hashBytes = 16...64

    /// Largest `m`, in KiB. Default 1 048 576 (1 GiB: libsodium's `MEMLIMIT_SENSITIVE`).
    public var maxMemoryKiB: UInt64 = 1 << 20
    /// Largest `t`. Default 10.
    public var maxIterations: UInt64 = 10
    /// Largest `p`. Default 16.
    public var maxParallelism: UInt64 = 16

    public init() {}

    /// Why `encoded` must not be verified (a sentence that follows "passwordHash"), or nil when it may be.
    public func problem(with encoded: String) -> String? {
        let hash: Argon2Hash
        do { hash = try Argon2Hash(encoded: encoded) } catch { return error.message }
        guard hash.version == 19 else { return "has version v=\(hash.version); only v=19 is verified" }
        guard (1...maxParallelism).contains(hash.parallelism) else {
            return "has p=\(hash.parallelism), outside 1-\(maxParallelism) (auth.argon2MaxParallelism)"
        }
        guard (1...maxIterations).contains(hash.iterations) else {
            return "has t=\(hash.iterations), outside 1-\(maxIterations) (auth.argon2MaxIterations)"
        }
        let leastMemory = 8 * hash.parallelism
        guard hash.memoryKiB >= leastMemory, hash.memoryKiB <= maxMemoryKiB else {
            return "has m=\(hash.memoryKiB), outside \(leastMemory)-\(maxMemoryKiB) KiB (auth.argon2MaxMemoryKiB)"
        }
        guard Self.saltBytes.contains(hash.saltBytes) else {
            return
                "has a \(hash.saltBytes)-byte salt, outside \(Self.saltBytes.lowerBound)-\(Self.saltBytes.upperBound)"
        }
        guard Self.hashBytes.contains(hash.hashBytes) else {
            return
                "has a \(hash.hashBytes)-byte hash, outside \(Self.hashBytes.lowerBound)-\(Self.hashBytes.upperBound)"
        }
        return nil
    }
}
