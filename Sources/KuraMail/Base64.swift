import KuraCore
import KuraModel

extension Base64 {
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
}
