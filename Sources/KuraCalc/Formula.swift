/// The four operators, with the symbols the calculator shows.
public enum Operator: String, Sendable, CaseIterable {
    case add = "+"
    case subtract = "-"
    case multiply = "×"
    case divide = "÷"

    /// Whether the operator binds tighter than + and -.
    var isMultiplicative: Bool { self == .multiply || self == .divide }
}

/// One piece of a typed formula.
public enum Token: Equatable, Sendable {
    /// A number as typed (digits, at most one point; no leading zeros).
    case number(String)
    /// A binary operator.
    case binary(Operator)
    /// A minus sign before a number, `Ans` or `(`: at the start, after `(`, or after × or ÷.
    case sign
    case open
    case close
    /// The previous answer.
    case answer

    /// How the token is shown in the formula.
    public var text: String {
        switch self {
        case .number(let digits): digits
        case .binary(let op): op.rawValue
        case .sign: "-"
        case .open: "("
        case .close: ")"
        case .answer: "Ans"
        }
    }

    /// `text.utf16.count`, without making the text.
    var length: Int {
        switch self {
        case .number(let digits): digits.utf16.count
        case .answer: 3
        default: 1
        }
    }

    /// Whether a formula may end with this token (a number, `)` or `Ans`).
    var endsOperand: Bool {
        switch self {
        case .number, .close, .answer: true
        default: false
        }
    }
}

/// A key of the calculator's keypad.
public enum Key: Equatable, Sendable {
    case digit(Int)
    case point
    case binary(Operator)
    case open
    case close
    case answer
    /// DEL: removes the last character typed.
    case delete
    /// AC: clears the formula and the result (the previous answer stays).
    case clear
    case equals

    /// The key a name stands for, as the case file and the web app spell keys: `0`…`9`, `.`, `+`, `-`, `*` or
    /// `×`, `/` or `÷`, `(`, `)`, `Ans`, `DEL`, `AC`, `=`.
    public init?(name: String) {
        switch name {
        case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9": self = .digit(Int(name)!)
        case ".": self = .point
        case "+": self = .binary(.add)
        case "-", "−": self = .binary(.subtract)
        case "*", "×": self = .binary(.multiply)
        case "/", "÷": self = .binary(.divide)
        case "(": self = .open
        case ")": self = .close
        case "Ans": self = .answer
        case "DEL": self = .delete
        case "AC": self = .clear
        case "=": self = .equals
        default: return nil
        }
    }
}

/// What the result display shows: a value or the error of the last calculation.
public enum Outcome: Equatable, Sendable {
    case value(ExactDecimal)
    case error(CalcMessage)
}
