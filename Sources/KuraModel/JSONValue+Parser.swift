extension JSONValue {
    /// Parses one JSON value (strict RFC 8259: no trailing commas, comments, NaN, leading zeros or invalid UTF-8;
    /// duplicate object keys are rejected too) from `bytes`.
    ///
    /// Integers without fraction or exponent become `.int`, exactly; one outside the `Int64` range is rejected (it
    /// cannot be kept exactly). Numbers with a fraction or exponent become `.double` (the nearest one; numbers beyond
    /// the double range are rejected). Errors are 400 `INVALID_ARGUMENT` and name the byte offset.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 64) throws -> JSONValue {
        let parsed: JSONValue? = try bytes.withContiguousStorageIfAvailable { buffer in
            var parser = JSONParser(buffer, maxDepth: maxDepth)
            return try parser.parseDocument()
        }
        if let parsed { return parsed }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer, maxDepth: maxDepth)
            return try parser.parseDocument()
        }
    }

    /// Parses JSON text.
    public static func parse(_ text: String, maxDepth: Int = 64) throws -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }
}

/// Recursive-descent parser over a byte buffer that must stay valid for the parser's lifetime.
struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let maxDepth: Int
    private var offset = 0
    private var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if offset != bytes.count { throw error("unexpected data after the JSON value") }
        return value
    }

    private func error(_ message: String, at position: Int? = nil) -> ValidationError {
        .invalidArgument("invalid JSON at byte \(position ?? offset): \(message)")
    }

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws -> JSONValue {
        guard offset < bytes.count else { throw error("unexpected end of input") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        guard offset + count <= bytes.count else { throw error("invalid literal") }
        let matches = literal.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[offset + $0] == expected[$0] }
        }
        guard matches else { throw error("invalid literal") }
        offset += count
    }

    private mutating func enter() throws {
        depth += 1
        if depth > maxDepth { throw error("nesting deeper than \(maxDepth) levels") }
    }

    private mutating func parseObject() throws -> JSONValue {
        try enter()
        offset += 1
        var object = JSONObject()
        skipWhitespace()
        if offset < bytes.count && bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
                throw error("expected a string key")
            }
            let keyOffset = offset
            let key = try parseString()
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw error("expected ':'") }
            offset += 1
            skipWhitespace()
            let value = try parseValue()
            guard object.appendIfAbsent(key, value) else { throw error("duplicate key", at: keyOffset) }
            skipWhitespace()
            guard offset < bytes.count else { throw error("unexpected end of input") }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
            } else if bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                depth -= 1
                return .object(object)
            } else {
                throw error("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws -> JSONValue {
        try enter()
        offset += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if offset < bytes.count && bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard offset < bytes.count else { throw error("unexpected end of input") }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
            } else if bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                depth -= 1
                return .array(elements)
            } else {
                throw error("expected ',' or ']'")
            }
        }
    }

    /// Parses a string starting at the opening quote. The common case (no escapes) is validated and copied once.
    private mutating func parseString() throws -> String {
        let start = offset
        offset += 1
        var scan = offset
        while scan < bytes.count {
            let byte = bytes[scan]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[offset..<scan])
                guard let string = String(validating: slice, as: UTF8.self) else {
                    throw error("invalid UTF-8 in string", at: start)
                }
                offset = scan + 1
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("unescaped control character in string", at: scan) }
            scan += 1
        }
        guard scan < bytes.count else { throw error("unterminated string", at: start) }
        return try parseEscapedString(start: start)
    }

    private mutating func parseEscapedString(start: Int) throws -> String {
        var out: [UInt8] = []
        while true {
            guard offset < bytes.count else { throw error("unterminated string", at: start) }
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                offset += 1
                guard let string = String(validating: out, as: UTF8.self) else {
                    throw error("invalid UTF-8 in string", at: start)
                }
                return string
            }
            if byte < 0x20 { throw error("unescaped control character in string") }
            if byte != UInt8(ascii: "\\") {
                out.append(byte)
                offset += 1
                continue
            }
            guard offset + 1 < bytes.count else { throw error("unterminated escape") }
            let escape = bytes[offset + 1]
            offset += 2
            switch escape {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"): try appendUnicodeEscape(to: &out)
            default: throw error("invalid escape", at: offset - 2)
            }
        }
    }

    /// Decodes `XXXX` after `\u` (and a following `\uXXXX` low surrogate when the first is a high surrogate).
    private mutating func appendUnicodeEscape(to out: inout [UInt8]) throws {
        let escapeStart = offset - 2
        var scalar = try readHex4()
        if (0xD800...0xDBFF).contains(scalar) {
            guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u")
            else { throw error("unpaired surrogate", at: escapeStart) }
            offset += 2
            let low = try readHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate", at: escapeStart) }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
            throw error("unpaired surrogate", at: escapeStart)
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid code point", at: escapeStart) }
        out.append(contentsOf: unicode.utf8)
    }

    private mutating func readHex4() throws -> UInt32 {
        guard offset + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    private func isDigit(_ position: Int) -> Bool {
        position < bytes.count && bytes[position] >= UInt8(ascii: "0") && bytes[position] <= UInt8(ascii: "9")
    }

    private mutating func parseNumber() throws -> JSONValue {
        let start = offset
        let negative = bytes[offset] == UInt8(ascii: "-")
        if negative { offset += 1 }
        guard isDigit(offset) else { throw error("expected a digit", at: offset) }
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
            if isDigit(offset) { throw error("leading zeros are not allowed", at: start) }
        } else {
            while isDigit(offset) { offset += 1 }
        }
        var isInteger = true
        if offset < bytes.count && bytes[offset] == UInt8(ascii: ".") {
            isInteger = false
            offset += 1
            guard isDigit(offset) else { throw error("expected a digit after '.'") }
            while isDigit(offset) { offset += 1 }
        }
        if offset < bytes.count && (bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E")) {
            isInteger = false
            offset += 1
            if offset < bytes.count && (bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-")) {
                offset += 1
            }
            guard isDigit(offset) else { throw error("expected a digit in the exponent") }
            while isDigit(offset) { offset += 1 }
        }
        if isInteger {
            // Stored as a double, such an integer would come back as another number: refused, never rounded.
            guard let integer = exactInteger(from: start + (negative ? 1 : 0), negative: negative) else {
                throw error("integer outside the 64-bit range (-2^63 to 2^63-1); send it as a string", at: start)
            }
            return .int(integer)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else { throw error("number out of range", at: start) }
        return .double(double)
    }

    /// The digits in `digitsStart..<offset` as an `Int64`, or `nil` on overflow.
    private func exactInteger(from digitsStart: Int, negative: Bool) -> Int64? {
        // Accumulate negatively so Int64.min is representable.
        var value: Int64 = 0
        for position in digitsStart..<offset {
            let digit = Int64(bytes[position] - UInt8(ascii: "0"))
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.subtractingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = next
        }
        if negative { return value }
        let (positive, overflow) = (0 as Int64).subtractingReportingOverflow(value)
        return overflow ? nil : positive
    }
}
