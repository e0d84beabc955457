import CSodium

/// Cryptographically secure random bytes from libsodium.
public enum SecureRandom {
    private static let ready: Bool = sodium_init() >= 0

    /// `count` random bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(ready, "libsodium failed to initialise")
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, count) }
        return out
    }

    /// `count` random bytes as lower-case hex.
    public static func hex(_ count: Int) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(count * 2)
        for byte in bytes(count) {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A random string of `count` characters from `[A-Za-z0-9]`, without modulo bias.
    public static func base62(_ count: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            for byte in bytes(count * 2) where byte < 248 && out.count < count {
                out.append(alphabet[Int(byte % 62)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// libsodium's random numbers as a `RandomNumberGenerator`, for the standard library's unbiased draws
    /// (`next(upperBound:)`).
    public struct Generator: RandomNumberGenerator {
        /// A generator; every instance draws from the one libsodium source.
        public init() { precondition(SecureRandom.ready, "libsodium failed to initialise") }

        public mutating func next() -> UInt64 {
            var value: UInt64 = 0
            withUnsafeMutableBytes(of: &value) { randombytes_buf($0.baseAddress!, 8) }
            return value
        }
    }
}
