import KuraCore
import KuraModel
import Testing

/// The shape of SecureRandom's output: lengths and alphabets (its randomness is libsodium's).
@Suite struct SecureRandomTests {
    @Test("bytes(n) gives n bytes, and two draws differ", arguments: [0, 1, 16, 1000])
    func bytes(_ count: Int) {
        #expect(SecureRandom.bytes(count).count == count)
        if count >= 16 { #expect(SecureRandom.bytes(count) != SecureRandom.bytes(count)) }
    }

    @Test("hex(n) is 2n lower-case hex digits")
    func hex() {
        let text = SecureRandom.hex(32)
        #expect(text.count == 64)
        #expect(text.allSatisfy { "0123456789abcdef".contains($0) })
    }

    @Test("base62(n) is n characters of [A-Za-z0-9], and uses the whole alphabet")
    func base62() {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        #expect(SecureRandom.base62(0).isEmpty)
        #expect(SecureRandom.base62(20).count == 20)
        // 62 symbols in 20,000 draws: each is missing with probability about 62 * (61/62)^20000, far below 1e-100.
        let long = SecureRandom.base62(20_000)
        #expect(long.count == 20_000)
        #expect(Set(long) == alphabet)
    }
}
