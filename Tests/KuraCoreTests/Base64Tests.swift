import KuraCore
import KuraModel
import Testing

/// Base64 through libsodium: RFC 4648's test vectors, both alphabets, and what decoding refuses.
@Suite struct Base64Tests {
    /// RFC 4648 §10.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ]

    @Test("RFC 4648 test vectors, standard alphabet with padding", arguments: vectors)
    func standard(_ plain: String, _ encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test("the URL-safe variant uses - and _ and no padding")
    func urlSafe() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF, 0xFE]
        #expect(Base64.encode(bytes) == "+/+//g==")
        #expect(Base64.encode(bytes, .urlSafe) == "-_-__g")
        #expect(Base64.decode("-_-__g", .urlSafe) == bytes)
        #expect(Base64.decode("-_-__g") == nil)
        #expect(Base64.decode("+/+//g==", .urlSafe) == nil)
    }

    @Test("decoding refuses what is not exactly an encoding", arguments: ["Zg", "Zg=", "Z===", "Zm9v!", "Zm 9v"])
    func rejects(_ text: String) {
        #expect(Base64.decode(text) == nil)
    }

    @Test("MIME line breaks are skipped only when asked")
    func ignoring() {
        #expect(Base64.decode("Zm9v\r\nYmFy", ignoring: "\r\n") == Array("foobar".utf8))
        #expect(Base64.decode("Zm9v\r\nYmFy") == nil)
    }

    @Test("every byte value round-trips in both variants")
    func roundTrip() {
        let bytes = (0...255).map { UInt8($0) }
        #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        #expect(Base64.decode(Base64.encode(bytes, .urlSafe), .urlSafe) == bytes)
    }
}
