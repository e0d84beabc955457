/// The kinds of token the lexer produces.
enum TokenKind: Equatable, Sendable {
    case identifier(String)
    case int(Int64)
    case float(Double)
    case string(String)
    /// Operators and punctuation, spelled as in the source: `&&`, `(`, `=`, …
    case symbol(String)
    case eof
}

/// One token with the position of its first character.
struct Token: Sendable {
    var kind: TokenKind
    var position: SourcePosition

    /// `true` when this is the symbol `text`.
    func isSymbol(_ text: String) -> Bool {
        if case .symbol(let symbol) = kind { return symbol == text }
        return false
    }

    /// `true` when this is the identifier (or keyword) `text`.
    func isWord(_ text: String) -> Bool {
        if case .identifier(let word) = kind { return word == text }
        return false
    }

    /// A short description for error messages.
    var display: String {
        switch kind {
        case .identifier(let word): "'\(word)'"
        case .int(let value): "number \(value)"
        case .float(let value): "number \(value)"
        case .string: "string literal"
        case .symbol(let symbol): "'\(symbol)'"
        case .eof: "end of file"
        }
    }
}
