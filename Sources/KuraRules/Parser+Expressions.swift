/// Expression grammar, lowest precedence first:
/// `?:` → `||` → `&&` → `== !=` → `< <= > >= in is` → `+ -` → `* / %` → prefix `! -` → `.member [index] (call)`.
extension Parser {
    mutating func parseExpression() throws(SyntaxError) -> Expression {
        let condition = try parseOr()
        guard current.isSymbol("?") else { return condition }
        try advance()
        let then = try parseNested()
        try expectSymbol(":")
        let otherwise = try parseNested()
        return try make(
            .conditional(condition, then, otherwise), at: condition.position, children: [condition, then, otherwise])
    }

    private mutating func parseOr() throws(SyntaxError) -> Expression {
        var left = try parseAnd()
        while current.isSymbol("||") {
            try advance()
            let right = try parseAnd()
            left = try make(.binary(.or, left, right), at: left.position, children: [left, right])
        }
        return left
    }

    private mutating func parseAnd() throws(SyntaxError) -> Expression {
        var left = try parseEquality()
        while current.isSymbol("&&") {
            try advance()
            let right = try parseEquality()
            left = try make(.binary(.and, left, right), at: left.position, children: [left, right])
        }
        return left
    }

    private mutating func parseEquality() throws(SyntaxError) -> Expression {
        var left = try parseRelational()
        while case .symbol(let symbol) = current.kind, symbol == "==" || symbol == "!=" {
            try advance()
            let right = try parseRelational()
            left = try make(
                .binary(BinaryOperator(rawValue: symbol)!, left, right), at: left.position, children: [left, right])
        }
        return left
    }

    private mutating func parseRelational() throws(SyntaxError) -> Expression {
        var left = try parseAdditive()
        while true {
            if case .symbol(let symbol) = current.kind, ["<", "<=", ">", ">="].contains(symbol) {
                try advance()
                let right = try parseAdditive()
                left = try make(
                    .binary(BinaryOperator(rawValue: symbol)!, left, right), at: left.position, children: [left, right])
            } else if current.isWord("in") {
                try advance()
                let right = try parseAdditive()
                left = try make(.binary(.in, left, right), at: left.position, children: [left, right])
            } else if current.isWord("is") {
                try advance()
                guard case .identifier(let name) = current.kind, let type = RuleType(rawValue: name) else {
                    let names = RuleType.allCases.map(\.rawValue).joined(separator: ", ")
                    throw error("expected a type name after 'is' (\(names)), found \(current.display)")
                }
                try advance()
                left = try make(.isType(left, type), at: left.position, children: [left])
            } else {
                return left
            }
        }
    }

    private mutating func parseAdditive() throws(SyntaxError) -> Expression {
        var left = try parseMultiplicative()
        while case .symbol(let symbol) = current.kind, symbol == "+" || symbol == "-" {
            try advance()
            let right = try parseMultiplicative()
            left = try make(
                .binary(BinaryOperator(rawValue: symbol)!, left, right), at: left.position, children: [left, right])
        }
        return left
    }

    private mutating func parseMultiplicative() throws(SyntaxError) -> Expression {
        var left = try parseUnary()
        while case .symbol(let symbol) = current.kind, symbol == "*" || symbol == "/" || symbol == "%" {
            try advance()
            let right = try parseUnary()
            left = try make(
                .binary(BinaryOperator(rawValue: symbol)!, left, right), at: left.position, children: [left, right])
        }
        return left
    }

    private mutating func parseUnary() throws(SyntaxError) -> Expression {
        let position = current.position
        if current.isSymbol("!") || current.isSymbol("-") {
            let op: UnaryOperator = current.isSymbol("!") ? .not : .negate
            try advance()
            // Bound prefix chains before recursing, so `!!!!…` cannot overflow the parser's own stack.
            let operand = try parseUnaryBounded()
            if op == .negate, case .float(let value) = operand.kind {
                return Expression(kind: .float(-value), position: position)
            }
            return try make(.unary(op, operand), at: position, children: [operand])
        }
        return try parsePostfix()
    }

    private mutating func parseUnaryBounded() throws(SyntaxError) -> Expression {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting <= Self.maxExpressionDepth else { throw error("expression nested too deeply") }
        return try parseUnary()
    }

    private mutating func parsePostfix() throws(SyntaxError) -> Expression {
        var expression = try parsePrimary()
        while true {
            if current.isSymbol(".") {
                try advance()
                // Member names may be keywords (`data.match`), so any identifier token is accepted.
                guard case .identifier(let name) = current.kind else {
                    throw error("expected a field or method name after '.', found \(current.display)")
                }
                try advance()
                if current.isSymbol("(") {
                    let arguments = try parseArguments()
                    expression = try make(
                        .methodCall(expression, name, arguments), at: expression.position,
                        children: [expression] + arguments)
                } else {
                    expression = try make(.member(expression, name), at: expression.position, children: [expression])
                }
            } else if current.isSymbol("[") {
                try advance()
                let index = try parseNested()
                try expectSymbol("]")
                expression = try make(
                    .index(expression, index), at: expression.position, children: [expression, index])
            } else {
                return expression
            }
        }
    }

    private mutating func parseArguments() throws(SyntaxError) -> [Expression] {
        try expectSymbol("(")
        var arguments: [Expression] = []
        while !current.isSymbol(")") {
            if !arguments.isEmpty { try expectSymbol(",") }
            arguments.append(try parseNested())
        }
        try advance()
        return arguments
    }

    /// A sub-expression inside brackets; counts towards the nesting bound.
    mutating func parseNested() throws(SyntaxError) -> Expression {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting <= Self.maxExpressionDepth else { throw error("expression nested too deeply") }
        return try parseExpression()
    }

    private mutating func parsePrimary() throws(SyntaxError) -> Expression {
        let token = current
        let position = token.position
        switch token.kind {
        case .int(let value):
            try advance()
            return Expression(kind: .int(value), position: position)
        case .float(let value):
            try advance()
            return Expression(kind: .float(value), position: position)
        case .string(let value):
            try advance()
            return Expression(kind: .string(value), position: position)
        case .identifier(let word):
            switch word {
            case "true", "false":
                try advance()
                return Expression(kind: .bool(word == "true"), position: position)
            case "null":
                try advance()
                return Expression(kind: .null, position: position)
            default:
                guard !Self.keywords.contains(word) else { throw error("unexpected keyword '\(word)'") }
                try advance()
                if current.isSymbol("(") {
                    let arguments = try parseArguments()
                    return try make(.call(word, arguments), at: position, children: arguments)
                }
                return Expression(kind: .identifier(word), position: position)
            }
        case .symbol("("):
            try advance()
            let inner = try parseNested()
            try expectSymbol(")")
            return inner
        case .symbol("["):
            try advance()
            var elements: [Expression] = []
            while !current.isSymbol("]") {
                if !elements.isEmpty {
                    try expectSymbol(",")
                    if current.isSymbol("]") { break }
                }
                elements.append(try parseNested())
            }
            try advance()
            return try make(.list(elements), at: position, children: elements)
        case .symbol("{"):
            try advance()
            var entries: [(key: Expression, value: Expression)] = []
            var children: [Expression] = []
            while !current.isSymbol("}") {
                if !entries.isEmpty {
                    try expectSymbol(",")
                    if current.isSymbol("}") { break }
                }
                let key = try parseNested()
                try expectSymbol(":")
                let value = try parseNested()
                entries.append((key, value))
                children += [key, value]
            }
            try advance()
            return try make(.map(entries), at: position, children: children)
        case .symbol("/"):
            return try parsePathLiteral(at: position)
        default:
            throw error("expected an expression, found \(token.display)")
        }
    }

    /// `/users/$(request.auth.uid)/notes/x`. `current` is the leading `/`; the lexer sits right after it.
    private mutating func parsePathLiteral(at position: SourcePosition) throws(SyntaxError) -> Expression {
        var segments: [PathLiteralSegment] = []
        var children: [Expression] = []
        while true {
            if lexer.peekByte() == UInt8(ascii: "$"), lexer.peekByte(1) == UInt8(ascii: "(") {
                lexer.advance()
                lexer.advance()
                try advance()
                let inner = try parseNested()
                guard current.isSymbol(")") else { throw error("expected ')' to close '$(' in path") }
                segments.append(.expression(inner))
                children.append(inner)
            } else {
                let segmentPosition = lexer.position
                let text = lexer.scanPathSegmentText()
                guard !text.isEmpty else {
                    throw SyntaxError(position: segmentPosition, message: "expected a path segment or '$(' after '/'")
                }
                segments.append(.text(text))
            }
            guard lexer.peekByte() == UInt8(ascii: "/") else { break }
            lexer.advance()
        }
        try advance()
        return try make(.path(segments), at: position, children: children)
    }

    /// Builds a node, enforcing the depth bound.
    func make(_ kind: ExpressionKind, at position: SourcePosition, children: [Expression]) throws(SyntaxError)
        -> Expression
    {
        let depth = 1 + (children.map(\.depth).max() ?? 0)
        guard depth <= Self.maxExpressionDepth else {
            throw SyntaxError(position: position, message: "expression nested too deeply")
        }
        return Expression(kind: kind, position: position, depth: depth)
    }
}
