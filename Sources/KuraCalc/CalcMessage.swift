/// What the calculator tells the user: a notice when a key was adjusted or ignored (the formula stays valid), or
/// the error a calculation ended with. The raw value is the stable code the shared case file
/// (apps/calc/cases.json) and the web app use.
public enum CalcMessage: String, Error, Sendable, CaseIterable {
    // Notices: the key was ignored or changed, nothing failed.
    /// A zero typed before any other digit of a number is dropped (`000+002` → `0+2`).
    case leadingZero
    /// An operator typed after another replaces it (a minus after × or ÷ is a sign instead).
    case operatorReplaced
    /// A second decimal point in one number is ignored.
    case secondPoint
    /// A number has at most ``Calculator/maximumDigits`` digits; more are ignored.
    case digitLimit
    /// An operator or `)` where a number must come first is ignored.
    case operandExpected
    /// A `)` with no `(` open is ignored.
    case noOpenParenthesis
    /// A key that would make the formula longer than ``Calculator/maximumLength`` characters is ignored.
    case formulaTooLong

    // Errors: the calculation has no result.
    /// `=` with a `(` not closed.
    case unclosedParenthesis
    /// `=` after an operator, a sign or `(`.
    case incomplete
    /// A division by zero.
    case divisionByZero
    /// A value reached 10^100 in magnitude.
    case overflow
    /// A formula's text holds a character that is no digit, point, operator, parenthesis or `Ans`.
    case invalidCharacter
    /// A formula's text holds nothing to calculate.
    case empty
    /// An edited number is not digits with at most one decimal point, or has too many digits.
    case invalidNumber
    /// An edit names a number the formula does not have.
    case noSuchNumber

    /// Whether the calculation failed (rather than a key being adjusted).
    public var isError: Bool {
        switch self {
        case .leadingZero, .operatorReplaced, .secondPoint, .digitLimit, .operandExpected, .noOpenParenthesis,
            .formulaTooLong:
            false
        default: true
        }
    }

    /// The message in English (`"en"`) or Japanese (`"ja"`).
    public func text(language: String) -> String {
        let (english, japanese) = texts
        return language.hasPrefix("ja") ? japanese : english
    }

    private var texts: (String, String) {
        switch self {
        case .leadingZero: ("Leading zeros are dropped.", "先頭の0は省きます。")
        case .operatorReplaced: ("Two operators in a row: the new one replaces the first.", "演算子が続いたため、前の演算子を置き換えました。")
        case .secondPoint: ("A number has only one decimal point.", "小数点は1つの数に1つまでです。")
        case .digitLimit: ("A number has at most 20 digits.", "数は20桁までです。")
        case .operandExpected: ("Enter a number first.", "先に数を入力してください。")
        case .noOpenParenthesis: ("There is no “(” to close.", "閉じる「(」がありません。")
        case .formulaTooLong: ("A formula has at most 1000 characters.", "式は1000文字までです。")
        case .unclosedParenthesis: ("A “(” is not closed.", "「(」が閉じられていません。")
        case .incomplete: ("The formula ends with an operator.", "式が演算子で終わっています。")
        case .divisionByZero: ("Division by zero.", "0で割ることはできません。")
        case .overflow: ("The result is too large (limit: 10^100).", "結果が大きすぎます（上限は10^100）。")
        case .invalidCharacter:
            (
                "The formula holds a character that is not a number, an operator, a parenthesis or Ans.",
                "式に使えない文字があります（数字・演算子・かっこ・Ans のみ）。"
            )
        case .empty: ("Nothing to calculate.", "計算する式がありません。")
        case .invalidNumber:
            ("Not a number: use up to 20 digits and at most one decimal point.", "数として読めません（20桁まで、小数点は1つまで）。")
        case .noSuchNumber: ("The formula has no such number.", "式にその数はありません。")
        }
    }
}
