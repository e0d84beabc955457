/// Appends `string` to `out` as a JSON string literal (quotes included), escaping per RFC 8259.
public func appendJSONString(_ string: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    for byte in string.utf8 {
        switch byte {
        case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        case 0..<0x20:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        default: out.append(byte)
        }
    }
    out.append(UInt8(ascii: "\""))
}

extension KuraError {
    /// The body every error is answered with: `{"error":{"code":"…","message":"…"}}`.
    public var jsonBody: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(48 + code.utf8.count + message.utf8.count)
        out.append(contentsOf: #"{"error":{"code":"#.utf8)
        appendJSONString(code, to: &out)
        out.append(contentsOf: #","message":"#.utf8)
        appendJSONString(message, to: &out)
        out.append(contentsOf: "}}".utf8)
        return out
    }
}
