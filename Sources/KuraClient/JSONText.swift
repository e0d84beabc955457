import Foundation
internal import KuraModel

/// JSON bytes ⇄ `KuraValue`, keeping integers apart from doubles (the server writes doubles with a `.` or an
/// exponent, and `JSONSerialization` would blur the two). Objects are written with sorted keys, so equal values
/// give equal bytes.
enum JSONText {
    static func encode(_ value: KuraValue) throws -> Data {
        var out: [UInt8] = []
        try write(value, to: &out)
        return Data(out)
    }

    static func decode(_ data: Data) throws -> KuraValue {
        var parser = Parser(bytes: Array(data))
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.fail("trailing characters") }
        return value
    }

    private static func write(_ value: KuraValue, to out: inout [UInt8]) throws {
        switch value {
        case .null: out += Array("null".utf8)
        case .bool(let flag): out += Array((flag ? "true" : "false").utf8)
        case .integer(let number): out += Array(String(number).utf8)
        case .double(let number):
            guard number.isFinite else {
                throw KuraError.invalidArgument("\(number) cannot be stored (JSON numbers are finite)")
            }
            // Swift's shortest round-trip form always has a `.` or an exponent, so the server keeps it a double.
            out += Array("\(number)".utf8)
        case .string(let text): writeString(text, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                try write(element, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .map(let members):
            out.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                try write(members[key]!, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .transform(let transform):
            throw KuraError.invalidArgument("FieldValue.\(transform) can only be written at the top of a field")
        }
    }

    private static func writeString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\n"): out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        func fail(_ why: String) -> KuraError { .invalidResponse("bad JSON at byte \(index): \(why)") }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) throws -> KuraValue {
            guard depth < 512 else { throw fail("nested too deeply") }
            guard index < bytes.count else { throw fail("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [String: KuraValue] = [:]
                skipSpace()
                if peek(UInt8(ascii: "}")) { return .map(members) }
                while true {
                    skipSpace()
                    guard peek(UInt8(ascii: "\""), consume: false) else { throw fail("expected a key") }
                    let key = try string()
                    skipSpace()
                    guard peek(UInt8(ascii: ":")) else { throw fail("expected ':'") }
                    skipSpace()
                    // A repeated key would silently drop one of the values, as the server's parser refuses to.
                    guard members[key] == nil else { throw fail("duplicate key '\(key)'") }
                    members[key] = try value(depth: depth + 1)
                    skipSpace()
                    if peek(UInt8(ascii: "}")) { return .map(members) }
                    guard peek(UInt8(ascii: ",")) else { throw fail("expected ',' or '}'") }
                }
            case UInt8(ascii: "["):
                index += 1
                var elements: [KuraValue] = []
                skipSpace()
                if peek(UInt8(ascii: "]")) { return .array(elements) }
                while true {
                    skipSpace()
                    elements.append(try value(depth: depth + 1))
                    skipSpace()
                    if peek(UInt8(ascii: "]")) { return .array(elements) }
                    guard peek(UInt8(ascii: ",")) else { throw fail("expected ',' or ']'") }
                }
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try word("true", .bool(true))
            case UInt8(ascii: "f"): return try word("false", .bool(false))
            case UInt8(ascii: "n"): return try word("null", .null)
            default: return try number()
            }
        }

        mutating func peek(_ byte: UInt8, consume: Bool = true) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            if consume { index += 1 }
            return true
        }

        mutating func word(_ text: String, _ value: KuraValue) throws -> KuraValue {
            let expected = Array(text.utf8)
            guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected
            else { throw fail("unexpected character") }
            index += expected.count
            return value
        }

        mutating func number() throws -> KuraValue {
            let start = index
            var isDouble = false
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                    isDouble = true
                } else if !(byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) && byte != UInt8(ascii: "-")
                    && byte != UInt8(ascii: "+")
                {
                    break
                }
                index += 1
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            if !isDouble, let integer = Int64(text) { return .integer(integer) }
            if !isDouble, text.utf8.dropFirst(text.hasPrefix("-") ? 1 : 0).allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                // An integer past Int64 (a `UInt64` field, say) would be rounded as a double: refused, as the server does.
                throw KuraError.invalidArgument("the integer \(text) is outside the 64-bit range documents can hold")
            }
            guard !text.isEmpty, let double = Double(text) else { throw fail("bad number '\(text)'") }
            return .double(double)
        }

        mutating func string() throws -> String {
            index += 1  // the opening quote
            var out: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { throw fail("dangling escape") }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800..<0xDC00).contains(scalar), peek(UInt8(ascii: "\\")), peek(UInt8(ascii: "u")) {
                            let low = try hex4()
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low &- 0xDC00)
                        }
                        out += Array(String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
                    default: out.append(escaped)
                    }
                default: out.append(byte)
                }
            }
            throw fail("unterminated string")
        }

        mutating func hex4() throws -> UInt32 {
            guard index + 4 <= bytes.count,
                let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
            else { throw fail("bad \\u escape") }
            index += 4
            return value
        }
    }
}
