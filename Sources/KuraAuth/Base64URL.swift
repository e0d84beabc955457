/// Unpadded base64url (RFC 4648 §5), as JWTs and JWKs use it.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let reverse: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = Int8(value) }
        return table
    }()

    static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = iterator.next()
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | (b1 ?? 0) >> 4)])
            if let b1 { out.append(alphabet[Int((b1 & 0x0F) << 2 | (b2 ?? 0) >> 6)]) }
            if let b2 { out.append(alphabet[Int(b2 & 0x3F)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The decoded bytes, or `nil` for characters outside the alphabet, padding, or an impossible length.
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in input {
            let value = reverse[Int(byte)]
            guard value >= 0 else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // Non-canonical encodings (stray low bits) are rejected so each value has exactly one spelling.
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }
}
