/// Recursive-descent parser for rules files: statements here, expressions in `Parser+Expressions.swift`.
struct Parser {
    /// Deepest expression tree accepted; deeper nesting is a syntax error rather than a stack overflow.
    static let maxExpressionDepth = 96
    /// Deepest `match` nesting accepted.
    static let maxMatchDepth = 32

    var lexer: Lexer
    var current: Token
    /// Current bracket/prefix nesting of the expression being parsed.
    var nesting = 0

    init(source: String) throws(SyntaxError) {
        lexer = Lexer(source)
        current = Token(kind: .eof, position: SourcePosition(line: 1, column: 1))
        current = try lexer.next()
    }

    /// Parses a whole file.
    mutating func parseFile() throws(SyntaxError) -> RulesFile {
        var file = RulesFile(version: nil, functions: [], matches: [])
        if current.isWord("rules_version") {
            try advance()
            try expectSymbol("=")
            guard case .string(let version) = current.kind else { throw error("expected a version string") }
            guard version == "1" || version == "2" else {
                throw error("unsupported rules_version '\(version)'; expected '1'")
            }
            file.version = version
            try advance()
            try expectSymbol(";")
        }
        try parseTopLevelItems(into: &file, closingBrace: false)
        return file
    }

    private mutating func parseTopLevelItems(into file: inout RulesFile, closingBrace: Bool) throws(SyntaxError) {
        while true {
            if closingBrace, current.isSymbol("}") {
                try advance()
                return
            }
            if case .eof = current.kind {
                if closingBrace { throw error("expected '}' before end of file") }
                return
            }
            if current.isWord("function") {
                file.functions.append(try parseFunction())
            } else if current.isWord("match") {
                file.matches.append(try parseMatch(depth: 1))
            } else if current.isWord("service"), !closingBrace {
                // `service cloud.firestore { … }` is accepted for compatibility and ignored.
                try advance()
                _ = try expectIdentifier("a service name")
                while current.isSymbol(".") {
                    try advance()
                    _ = try expectIdentifier("a service name")
                }
                try expectSymbol("{")
                try parseTopLevelItems(into: &file, closingBrace: true)
            } else if current.isWord("allow") {
                throw error("'allow' must be inside a 'match' block")
            } else {
                throw error("expected 'match' or 'function', found \(current.display)")
            }
        }
    }

    private mutating func parseMatch(depth: Int) throws(SyntaxError) -> MatchBlock {
        let position = current.position
        guard depth <= Self.maxMatchDepth else { throw error("match blocks nested too deeply") }
        // `current` is `match`; the lexer sits right after it, so the pattern is read raw.
        let segments = try parseMatchPattern()
        current = try lexer.next()
        try expectSymbol("{")
        var block = MatchBlock(segments: segments, functions: [], allows: [], matches: [], position: position)
        while !current.isSymbol("}") {
            if current.isWord("allow") {
                block.allows.append(try parseAllow())
            } else if current.isWord("function") {
                block.functions.append(try parseFunction())
            } else if current.isWord("match") {
                block.matches.append(try parseMatch(depth: depth + 1))
            } else if case .eof = current.kind {
                throw error("expected '}' to close the match block at \(position.line):\(position.column)")
            } else {
                throw error("expected 'allow', 'match' or 'function', found \(current.display)")
            }
        }
        try advance()
        return block
    }

    private mutating func parseMatchPattern() throws(SyntaxError) -> [MatchSegment] {
        try lexer.skipTrivia()
        guard lexer.peekByte() == UInt8(ascii: "/") else {
            throw SyntaxError(position: lexer.position, message: "expected a path pattern starting with '/'")
        }
        var segments: [MatchSegment] = []
        while lexer.peekByte() == UInt8(ascii: "/") {
            lexer.advance()
            let position = lexer.position
            if lexer.peekByte() == UInt8(ascii: "{") {
                lexer.advance()
                let name = lexer.scanPathSegmentText()
                guard let first = name.utf8.first, Lexer.isIdentifierStart(first),
                    name.utf8.allSatisfy(Lexer.isIdentifierPart)
                else { throw SyntaxError(position: position, message: "expected a variable name after '{'") }
                var isRest = false
                if lexer.peekByte() == UInt8(ascii: "=") {
                    lexer.advance()
                    guard lexer.peekByte() == UInt8(ascii: "*"), lexer.peekByte(1) == UInt8(ascii: "*") else {
                        throw SyntaxError(
                            position: lexer.position, message: "expected '**' after '=' in a path variable")
                    }
                    lexer.advance()
                    lexer.advance()
                    isRest = true
                }
                guard lexer.peekByte() == UInt8(ascii: "}") else {
                    throw SyntaxError(position: lexer.position, message: "expected '}' to close the path variable")
                }
                lexer.advance()
                if segments.contains(where: { $0 == .rest(name) || $0 == .variable(name) }) {
                    throw SyntaxError(position: position, message: "path variable '\(name)' is bound twice")
                }
                if case .rest = segments.last {
                    throw SyntaxError(position: position, message: "a '**' variable must be the last segment")
                }
                segments.append(isRest ? .rest(name) : .variable(name))
            } else {
                let text = lexer.scanPathSegmentText()
                guard !text.isEmpty else { throw SyntaxError(position: position, message: "expected a path segment") }
                if case .rest = segments.last {
                    throw SyntaxError(position: position, message: "a '**' variable must be the last segment")
                }
                segments.append(.literal(text))
            }
        }
        return segments
    }

    private mutating func parseAllow() throws(SyntaxError) -> AllowStatement {
        let position = current.position
        try advance()
        var methods: [AllowMethodName] = []
        repeat {
            if !methods.isEmpty { try advance() }
            guard case .identifier(let word) = current.kind, let method = AllowMethodName(rawValue: word) else {
                throw error(
                    "expected a method (get, list, create, update, delete, read, write), found \(current.display)")
            }
            methods.append(method)
            try advance()
        } while current.isSymbol(",")
        if current.isSymbol(";") {
            throw error("'allow' needs a condition: write 'allow \(methods[0].rawValue): if <condition>;'")
        }
        try expectSymbol(":")
        guard current.isWord("if") else { throw error("expected 'if' after ':'") }
        try advance()
        let condition = try parseExpression()
        try expectSymbol(";")
        return AllowStatement(methods: methods, condition: condition, position: position)
    }

    private mutating func parseFunction() throws(SyntaxError) -> FunctionDeclaration {
        let position = current.position
        try advance()
        let name = try expectIdentifier("a function name")
        try expectSymbol("(")
        var parameters: [String] = []
        while !current.isSymbol(")") {
            if !parameters.isEmpty { try expectSymbol(",") }
            let parameterPosition = current.position
            let parameter = try expectIdentifier("a parameter name")
            if parameters.contains(parameter) {
                throw SyntaxError(position: parameterPosition, message: "duplicate parameter '\(parameter)'")
            }
            parameters.append(parameter)
        }
        try advance()
        try expectSymbol("{")
        var lets: [(name: String, value: Expression, position: SourcePosition)] = []
        while current.isWord("let") {
            try advance()
            let letPosition = current.position
            let letName = try expectIdentifier("a variable name")
            try expectSymbol("=")
            let value = try parseExpression()
            try expectSymbol(";")
            lets.append((letName, value, letPosition))
        }
        guard current.isWord("return") else { throw error("expected 'let' or 'return' in function body") }
        try advance()
        let body = try parseExpression()
        if current.isSymbol(";") { try advance() }
        try expectSymbol("}")
        return FunctionDeclaration(name: name, parameters: parameters, lets: lets, body: body, position: position)
    }

    // MARK: Token helpers

    mutating func advance() throws(SyntaxError) {
        current = try lexer.next()
    }

    mutating func expectSymbol(_ symbol: String) throws(SyntaxError) {
        guard current.isSymbol(symbol) else { throw error("expected '\(symbol)', found \(current.display)") }
        try advance()
    }

    static let keywords: Set<String> = [
        "true", "false", "null", "if", "allow", "match", "function", "return", "let", "in", "is", "rules_version",
        "service",
    ]

    mutating func expectIdentifier(_ what: String) throws(SyntaxError) -> String {
        guard case .identifier(let word) = current.kind, !Self.keywords.contains(word) else {
            throw error("expected \(what), found \(current.display)")
        }
        try advance()
        return word
    }

    func error(_ message: String) -> SyntaxError {
        SyntaxError(position: current.position, message: message)
    }
}
