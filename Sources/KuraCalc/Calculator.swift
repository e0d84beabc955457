/// The calculator: a formula typed key by key, its result, and the previous answer (`Ans`).
///
/// Keys keep the formula well formed as it is typed: leading zeros are dropped, a second decimal point is ignored,
/// an operator typed after another replaces it (a minus after × or ÷ becomes the next number's sign), a `)` closes
/// only an open `(`, and a number, `(` or `Ans` right after `)` or `Ans` (or `(`/`Ans` after a number) gets a `×`
/// written in front; a formula has at most ``maximumLength`` characters. Each adjusted or ignored key returns a notice. After `=` a digit, point, `(` or `Ans` starts a
/// new formula and an operator continues from `Ans`.
public struct Calculator: Sendable {
    /// Digits a number may have.
    public static let maximumDigits = 20
    /// Characters a formula may have (as shown): a key that would make it longer is ignored. It bounds the work and
    /// the nesting of parentheses, and keeps a history entry small.
    public static let maximumLength = 1000

    /// The formula typed so far.
    public private(set) var tokens: [Token] = []
    /// The result shown: the last calculation's value or error; nil while a formula is being typed.
    public private(set) var outcome: Outcome?
    /// The previous answer, which `Ans` stands for (0 before the first calculation).
    public var answer: ExactDecimal
    /// Whether the result of `=` is shown (the next digit starts a new formula).
    public private(set) var showsResult = false

    public init(answer: ExactDecimal = .zero) {
        self.answer = answer
    }

    /// The formula as shown (`2×(3+4)-Ans`).
    public var formula: String { tokens.map(\.text).joined() }

    /// The formula's length in characters (each is one UTF-16 unit, so the web app's `formula.length` is the same).
    var formulaLength: Int { tokens.reduce(0) { $0 + $1.length } }

    /// Presses `key`; returns a notice when the key was adjusted or ignored.
    @discardableResult
    public mutating func press(_ key: Key) -> CalcMessage? {
        // A key changes at most the last two tokens of a formula it lengthens, so they are all there is to restore
        // (keeping a copy of the whole formula would copy it on every key).
        let (count, tail, outcome, showsResult) = (
            tokens.count, Array(tokens.suffix(2)), self.outcome, self.showsResult
        )
        let notice = apply(key)
        if formulaLength > Self.maximumLength, tokens.count >= count - tail.count {
            tokens.removeSubrange((count - tail.count)...)
            tokens += tail
            (self.outcome, self.showsResult) = (outcome, showsResult)
            return .formulaTooLong
        }
        return notice
    }

    private mutating func apply(_ key: Key) -> CalcMessage? {
        switch key {
        case .equals: return equals()
        case .clear:
            (tokens, outcome, showsResult) = ([], nil, false)
            return nil
        case .delete:
            (outcome, showsResult) = (nil, false)
            deleteLast()
            return nil
        case .binary(let op):
            if showsResult, case .value = outcome { tokens = [.answer] }
            (outcome, showsResult) = (nil, false)
            return type(op)
        default:
            if showsResult { tokens = [] }
            (outcome, showsResult) = (nil, false)
        }
        switch key {
        case .digit(let digit): return type(digit: digit)
        case .point: return typePoint()
        case .open:
            multiplyIfOperandBefore()
            tokens.append(.open)
        case .close:
            guard let last = tokens.last, last.endsOperand else { return .operandExpected }
            guard openParentheses > 0 else { return .noOpenParenthesis }
            tokens.append(.close)
        case .answer:
            multiplyIfOperandBefore()
            tokens.append(.answer)
        default: break
        }
        return nil
    }

    /// Replaces the number at `ordinal` (0 for the formula's first number) with `text` and calculates again, so the
    /// result follows the edit. Returns `.invalidNumber` or `.noSuchNumber`, leaving everything as it was, when the
    /// edit cannot be made.
    @discardableResult
    public mutating func edit(number ordinal: Int, to text: String) -> CalcMessage? {
        let positions = tokens.indices.filter { if case .number = tokens[$0] { true } else { false } }
        guard ordinal >= 0, ordinal < positions.count else { return .noSuchNumber }
        guard let digits = Self.normalizedNumber(text) else { return .invalidNumber }
        let before = tokens
        tokens[positions[ordinal]] = .number(digits)
        if formulaLength > Self.maximumLength {
            tokens = before
            return .formulaTooLong
        }
        showsResult = false
        return equals()
    }

    /// Calculates `text` as if its characters were typed (`*` and `/` stand for × and ÷, `Ans` for the previous
    /// answer; spaces are skipped, one `=` may end it). Returns the calculator afterwards and the notices. A text
    /// longer than ``maximumLength`` ends with the error ``CalcMessage/formulaTooLong``.
    public static func calculate(_ text: String, answer: ExactDecimal = .zero) -> (Calculator, [CalcMessage]) {
        var calculator = Calculator(answer: answer)
        var notices: [CalcMessage] = []
        var rest = Substring(text)
        if rest.hasSuffix("=") { rest = rest.dropLast() }
        while let character = rest.first {
            if character.isWhitespace {
                rest = rest.dropFirst()
                continue
            }
            let key: Key?
            if rest.prefix(3).lowercased() == "ans" {
                key = .answer
                rest = rest.dropFirst(3)
            } else {
                key = Key(name: String(character))
                rest = rest.dropFirst()
            }
            guard let key, key != .delete, key != .clear, key != .equals else {
                calculator.outcome = .error(.invalidCharacter)
                return (calculator, notices)
            }
            let notice = calculator.press(key)
            if notice == .formulaTooLong {
                // Text is not cut short silently: the whole formula is refused.
                calculator.outcome = .error(.formulaTooLong)
                return (calculator, notices)
            }
            if let notice { notices.append(notice) }
        }
        if calculator.tokens.isEmpty {
            calculator.outcome = .error(.empty)
        } else {
            calculator.press(.equals)
        }
        return (calculator, notices)
    }

    /// `text` as a number token (`007` → `7`, `.5` → `0.5`), or nil when it is not digits with at most one point,
    /// or has more than ``maximumDigits`` digits.
    static func normalizedNumber(_ text: String) -> String? {
        var (digits, hasPoint) = ("", false)
        for character in text {
            if character == "." {
                if hasPoint { return nil }
                hasPoint = true
                if digits.isEmpty { digits = "0" }
                digits.append(".")
            } else if let value = character.wholeNumberValue, character.isASCII {
                if digits == "0" { digits = "" }
                digits.append(String(value))
            } else {
                return nil
            }
        }
        guard !digits.isEmpty, digits.filter(\.isNumber).count <= maximumDigits else { return nil }
        return digits
    }

    private var openParentheses: Int {
        tokens.reduce(0) { count, token in token == .open ? count + 1 : token == .close ? count - 1 : count }
    }

    private mutating func equals() -> CalcMessage? {
        guard !showsResult, !tokens.isEmpty else { return nil }
        var evaluation = Evaluation(tokens: tokens, answer: answer)
        do throws(CalcMessage) {
            let value = try evaluation.run()
            (outcome, answer, showsResult) = (.value(value), value, true)
        } catch {
            outcome = .error(error)
        }
        return nil
    }

    private mutating func type(digit: Int) -> CalcMessage? {
        if case .number(let digits) = tokens.last {
            if digits == "0" {
                if digit == 0 { return .leadingZero }
                tokens[tokens.count - 1] = .number(String(digit))
                return nil
            }
            if digits.filter(\.isNumber).count >= Self.maximumDigits { return .digitLimit }
            tokens[tokens.count - 1] = .number(digits + String(digit))
            return nil
        }
        multiplyIfOperandBefore()
        tokens.append(.number(String(digit)))
        return nil
    }

    private mutating func typePoint() -> CalcMessage? {
        if case .number(let digits) = tokens.last {
            if digits.contains(".") { return .secondPoint }
            if digits.filter(\.isNumber).count >= Self.maximumDigits { return .digitLimit }
            tokens[tokens.count - 1] = .number(digits + ".")
            return nil
        }
        multiplyIfOperandBefore()
        tokens.append(.number("0."))
        return nil
    }

    private mutating func type(_ op: Operator) -> CalcMessage? {
        switch tokens.last {
        case nil, .open:
            guard op == .subtract else { return .operandExpected }
            tokens.append(.sign)
        case .number, .close, .answer:
            tokens.append(.binary(op))
        case .binary(let previous):
            if op == .subtract && previous.isMultiplicative {
                tokens.append(.sign)
            } else if op != previous {
                tokens[tokens.count - 1] = .binary(op)
                return .operatorReplaced
            }
        case .sign:
            guard op != .subtract else { return nil }
            tokens.removeLast()
            if case .binary = tokens.last {
                tokens[tokens.count - 1] = .binary(op)
                return .operatorReplaced
            }
            return .operandExpected
        }
        return nil
    }

    /// Writes the × that `2(`, `)(`, `)2`, `Ans 2` and the like leave implicit.
    private mutating func multiplyIfOperandBefore() {
        if let last = tokens.last, last.endsOperand { tokens.append(.binary(.multiply)) }
    }

    private mutating func deleteLast() {
        guard let last = tokens.last else { return }
        if case .number(let digits) = last, digits.count > 1 {
            tokens[tokens.count - 1] = .number(String(digits.dropLast()))
        } else {
            tokens.removeLast()
        }
    }
}
