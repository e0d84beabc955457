/// Appends `string` to `out` as a JSON string literal (quotes included), escaping per RFC 8259.
/// Runs of bytes that need no escape are copied in one piece; this is on the path of every document served.
public func appendJSONString(_ string: String, to out: inout [UInt8]) {
    var string = string
    string.withUTF8 { appendJSONString(utf8: $0, to: &out) }
}

/// Appends UTF-8 bytes as a JSON string literal (quotes included).
public func appendJSONString(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
    out.reserveCapacity(out.count + bytes.count + 2)
    out.append(UInt8(ascii: "\""))
    var runStart = 0
    for i in 0..<bytes.count {
        let byte = bytes[i]
        guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
        if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
        runStart = i + 1
        switch byte {
        case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        default:
            let hex: StaticString = "0123456789abcdef"
            let digits = hex.utf8Start
            out.append(contentsOf: [
                0x5C, UInt8(ascii: "u"), 0x30, 0x30, digits[Int(byte >> 4)], digits[Int(byte & 0xF)],
            ])
        }
    }
    if runStart < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
    out.append(UInt8(ascii: "\""))
}
