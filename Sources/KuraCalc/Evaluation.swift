/// Evaluates a formula's tokens: × and ÷ before + and -, left to right; a sign binds tightest; parentheses first.
/// Each operation rounds to ``ExactDecimal/workingDigits``; the result is rounded to ``ExactDecimal/displayDigits``.
struct Evaluation {
    let tokens: [Token]
    let answer: ExactDecimal
    private var position = 0

    init(tokens: [Token], answer: ExactDecimal) {
        self.tokens = tokens
        self.answer = answer
    }

    /// The formula's value, or the first error met: ``CalcMessage/incomplete`` and
    /// ``CalcMessage/unclosedParenthesis`` before any arithmetic, then the arithmetic's own, left to right.
    mutating func run() throws(CalcMessage) -> ExactDecimal {
        guard let last = tokens.last, last.endsOperand else { throw .incomplete }
        let open = tokens.filter { $0 == .open }.count
        let closed = tokens.filter { $0 == .close }.count
        guard open == closed else { throw open > closed ? .unclosedParenthesis : .noOpenParenthesis }
        let value = try expression()
        guard position == tokens.count else { throw .noOpenParenthesis }
        return try value.rounded(toSignificantDigits: ExactDecimal.displayDigits).bounded()
    }

    private mutating func expression() throws(CalcMessage) -> ExactDecimal {
        var value = try term()
        while position < tokens.count, case .binary(let op) = tokens[position], !op.isMultiplicative {
            position += 1
            let right = try term()
            value = op == .add ? try ExactDecimal.sum(value, right) : try ExactDecimal.difference(value, right)
        }
        return value
    }

    private mutating func term() throws(CalcMessage) -> ExactDecimal {
        var value = try factor()
        while position < tokens.count, case .binary(let op) = tokens[position], op.isMultiplicative {
            position += 1
            let right = try factor()
            value = op == .multiply ? try ExactDecimal.product(value, right) : try ExactDecimal.quotient(value, right)
        }
        return value
    }

    private mutating func factor() throws(CalcMessage) -> ExactDecimal {
        guard position < tokens.count else { throw .incomplete }
        let token = tokens[position]
        position += 1
        switch token {
        case .sign: return try factor().negated
        case .number(let digits):
            guard let value = ExactDecimal(literal: digits) else { throw .invalidNumber }
            return value
        case .answer: return answer
        case .open:
            let value = try expression()
            guard position < tokens.count, tokens[position] == .close else { throw .unclosedParenthesis }
            position += 1
            return value
        case .binary, .close: throw .incomplete
        }
    }
}
