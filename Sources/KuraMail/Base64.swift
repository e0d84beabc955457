/// Standard base64 (RFC 4648, with padding), as MIME needs it; no Foundation in this module.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` encoded on one line.
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = iterator.next()
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | (b1 ?? 0) >> 4)])
            out.append(b1.map { alphabet[Int(($0 & 0x0F) << 2 | (b2 ?? 0) >> 6)] } ?? UInt8(ascii: "="))
            out.append(b2.map { alphabet[Int($0 & 0x3F)] } ?? UInt8(ascii: "="))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `bytes` encoded in lines of at most 76 characters, each ending in CRLF (RFC 2045 §6.8).
    static func encodeLines(_ bytes: [UInt8]) -> String {
        let encoded = Array(encode(bytes).utf8)
        var out: [UInt8] = []
        out.reserveCapacity(encoded.count + encoded.count / 76 * 2 + 2)
        var start = 0
        while start < encoded.count {
            let end = min(start + 76, encoded.count)
            out.append(contentsOf: encoded[start..<end])
            out.append(contentsOf: [0x0D, 0x0A])
            start = end
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base64, ignoring line breaks; `nil` on any other invalid character.
    static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in text.utf8 {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0") + 52
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="), 0x0D, 0x0A: continue
            default: return nil
            }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return out
    }
}
