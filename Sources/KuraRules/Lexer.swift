/// Turns rules source into tokens on demand. The parser pulls one token at a time and, for path literals
/// (`/users/$(uid)`) and match patterns (`/users/{uid}`), reads raw path segments with `scanPathSegmentText`.
struct Lexer {
    private let bytes: [UInt8]
    private(set) var offset = 0
    private(set) var line = 1
    private(set) var column = 1

    /// Longest symbols first, so `&&` wins over `&`.
    private static let symbols: [String] = [
        "&&", "||", "==", "!=", "<=", ">=",
        "!", "<", ">", "+", "-", "*", "/", "%", "(", ")", "[", "]", "{", "}", ",", ";", ":", ".", "?", "=",
    ].sorted { $0.utf8.count > $1.utf8.count }
    private static let symbolBytes: [(String, [UInt8])] = symbols.map { ($0, Array($0.utf8)) }

    init(_ source: String) {
        bytes = Array(source.utf8)
    }

    var position: SourcePosition { SourcePosition(line: line, column: column) }

    /// The byte at the current offset plus `ahead`, or `nil` past the end.
    func peekByte(_ ahead: Int = 0) -> UInt8? {
        let index = offset + ahead
        return index < bytes.count ? bytes[index] : nil
    }

    /// Consumes one byte, keeping line and column up to date (columns count Unicode scalars).
    mutating func advance() {
        let byte = bytes[offset]
        offset += 1
        if byte == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
    }

    /// Skips whitespace and comments.
    mutating func skipTrivia() throws(SyntaxError) {
        while let byte = peekByte() {
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                advance()
            } else if byte == UInt8(ascii: "/"), peekByte(1) == UInt8(ascii: "/") {
                while let next = peekByte(), next != 0x0A { advance() }
            } else if byte == UInt8(ascii: "/"), peekByte(1) == UInt8(ascii: "*") {
                let start = position
                advance()
                advance()
                while true {
                    guard let next = peekByte() else {
                        throw SyntaxError(position: start, message: "unterminated block comment")
                    }
                    if next == UInt8(ascii: "*"), peekByte(1) == UInt8(ascii: "/") {
                        advance()
                        advance()
                        break
                    }
                    advance()
                }
            } else {
                return
            }
        }
    }

    /// The next token.
    mutating func next() throws(SyntaxError) -> Token {
        try skipTrivia()
        let start = position
        guard let byte = peekByte() else { return Token(kind: .eof, position: start) }
        if Self.isIdentifierStart(byte) {
            let begin = offset
            while let next = peekByte(), Self.isIdentifierPart(next) { advance() }
            return Token(kind: .identifier(String(decoding: bytes[begin..<offset], as: UTF8.self)), position: start)
        }
        if Self.isDigit(byte) { return try number(start: start) }
        if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") { return try string(quote: byte, start: start) }
        for (symbol, symbolBytes) in Self.symbolBytes where matches(symbolBytes) {
            for _ in symbolBytes { advance() }
            return Token(kind: .symbol(symbol), position: start)
        }
        let scalar = String(decoding: bytes[offset..<min(offset + 4, bytes.count)], as: UTF8.self).unicodeScalars.first
        let shown = scalar.map { $0.isASCII && $0.value >= 0x20 ? "'\($0)'" : "U+\(String($0.value, radix: 16))" }
        throw SyntaxError(position: start, message: "unexpected character \(shown ?? "byte")")
    }

    private func matches(_ symbol: [UInt8]) -> Bool {
        guard offset + symbol.count <= bytes.count else { return false }
        for (index, byte) in symbol.enumerated() where bytes[offset + index] != byte { return false }
        return true
    }

    private mutating func number(start: SourcePosition) throws(SyntaxError) -> Token {
        let begin = offset
        var isFloat = false
        while let byte = peekByte(), Self.isDigit(byte) { advance() }
        if peekByte() == UInt8(ascii: "."), let after = peekByte(1), Self.isDigit(after) {
            isFloat = true
            advance()
            while let byte = peekByte(), Self.isDigit(byte) { advance() }
        }
        if let e = peekByte(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            var ahead = 1
            if let sign = peekByte(1), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { ahead = 2 }
            if let digit = peekByte(ahead), Self.isDigit(digit) {
                isFloat = true
                for _ in 0..<ahead { advance() }
                while let byte = peekByte(), Self.isDigit(byte) { advance() }
            }
        }
        let text = String(decoding: bytes[begin..<offset], as: UTF8.self)
        if let next = peekByte(), Self.isIdentifierStart(next) {
            throw SyntaxError(position: start, message: "invalid number literal")
        }
        if isFloat {
            guard let value = Double(text), value.isFinite else {
                throw SyntaxError(position: start, message: "invalid number literal")
            }
            return Token(kind: .float(value), position: start)
        }
        guard let value = Int64(text) else {
            throw SyntaxError(position: start, message: "integer literal out of range")
        }
        return Token(kind: .int(value), position: start)
    }

    private mutating func string(quote: UInt8, start: SourcePosition) throws(SyntaxError) -> Token {
        advance()
        var out: [UInt8] = []
        while true {
            guard let byte = peekByte(), byte != 0x0A else {
                throw SyntaxError(position: start, message: "unterminated string literal")
            }
            if byte == quote {
                advance()
                return Token(kind: .string(String(decoding: out, as: UTF8.self)), position: start)
            }
            if byte != UInt8(ascii: "\\") {
                out.append(byte)
                advance()
                continue
            }
            let escapePosition = position
            advance()
            guard let escaped = peekByte() else {
                throw SyntaxError(position: start, message: "unterminated string literal")
            }
            advance()
            switch escaped {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "0"): out.append(0x00)
            case UInt8(ascii: "\\"), UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "/"): out.append(escaped)
            case UInt8(ascii: "u"):
                var value: UInt32 = 0
                for _ in 0..<4 {
                    guard let hex = peekByte(), let digit = Self.hexValue(hex) else {
                        throw SyntaxError(position: escapePosition, message: "\\u needs four hex digits")
                    }
                    value = value * 16 + digit
                    advance()
                }
                guard let scalar = Unicode.Scalar(value) else {
                    throw SyntaxError(position: escapePosition, message: "\\u escape is not a Unicode scalar")
                }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                throw SyntaxError(position: escapePosition, message: "unknown escape sequence in string literal")
            }
        }
    }

    /// Reads the literal text of one path segment (up to `/`, whitespace, or a delimiter); empty if none.
    mutating func scanPathSegmentText() -> String {
        let begin = offset
        while let byte = peekByte(), Self.isPathCharacter(byte) { advance() }
        return String(decoding: bytes[begin..<offset], as: UTF8.self)
    }

    static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || byte == UInt8(ascii: "_")
    }
    static func isIdentifierPart(_ byte: UInt8) -> Bool { isIdentifierStart(byte) || isDigit(byte) }
    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    /// Characters allowed in a literal path segment: letters, digits and `-_.~@%`, plus any non-ASCII byte.
    static func isPathCharacter(_ byte: UInt8) -> Bool {
        if isIdentifierPart(byte) || byte >= 0x80 { return true }
        return "-_.~@%".utf8.contains(byte)
    }
    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
