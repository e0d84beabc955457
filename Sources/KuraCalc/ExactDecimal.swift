/// A decimal number held exactly: `±coefficient × 10^exponent`, with an integer coefficient of any length.
///
/// Sums, differences and products of the calculator's numbers are exact before rounding, so `2.3 + 5.3 + 3.3` is
/// `10.9` (binary `Double` gives `10.899999999999999`). Every operation rounds its result to
/// ``workingDigits`` significant digits, a quotient from its exact value, and a finished calculation is rounded to
/// ``displayDigits`` (``rounded(toSignificantDigits:)``); both roundings are half to even. Values are kept below
/// 10^100 in magnitude (``CalcMessage/overflow`` otherwise), and a value smaller than 10^-100 in magnitude becomes 0.
public struct ExactDecimal: Equatable, Sendable, CustomStringConvertible {
    /// Significant digits kept by each operation of a calculation (four guard digits beyond the display's).
    public static let workingDigits = 24
    /// Significant digits of a calculation's result (what is shown, and what `Ans` holds).
    public static let displayDigits = 20
    /// Largest power of ten a value may reach: results are below 10^maximumExponent in magnitude.
    public static let maximumExponent = 100

    /// Whether the value is below zero (zero is never negative).
    public let isNegative: Bool
    /// The digits, without trailing zeros (they move into `exponent`).
    let coefficient: Natural
    /// The power of ten the coefficient is scaled by.
    public let exponent: Int

    public static let zero = ExactDecimal(isNegative: false, coefficient: .zero, exponent: 0)

    init(isNegative: Bool, coefficient: Natural, exponent: Int) {
        if coefficient.isZero {
            (self.isNegative, self.coefficient, self.exponent) = (false, .zero, 0)
            return
        }
        var trailingZeros = 0
        while coefficient.digits[trailingZeros] == 0 { trailingZeros += 1 }
        self.isNegative = isNegative
        self.coefficient = coefficient.split(at: trailingZeros).high
        self.exponent = exponent + trailingZeros
    }

    /// Reads a plain decimal literal: digits with at most one decimal point (`12`, `0.5`, `.5`, `5.`), no sign,
    /// no exponent; nil for anything else.
    public init?(literal: String) {
        let parts = literal.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count > 1 ? parts[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty), let value = Natural(decimal: whole + fraction) else { return nil }
        self.init(isNegative: false, coefficient: value, exponent: -fraction.count)
    }

    /// Reads a value as ``description`` prints it (`-1.5e+21`, `0.25`), e.g. a result kept in a history; nil for
    /// anything else, or for a value beyond the bounds.
    public init?(_ text: String) {
        var rest = Substring(text)
        let isNegative = rest.first == "-"
        if isNegative { rest = rest.dropFirst() }
        var power = 0
        if let e = rest.firstIndex(of: "e") {
            let exponent = rest[rest.index(after: e)...]
            guard let sign = exponent.first, sign == "+" || sign == "-", (2...5).contains(exponent.count),
                let magnitude = Int(exponent.dropFirst()), exponent.dropFirst().allSatisfy(\.isASCII)
            else { return nil }
            power = sign == "-" ? -magnitude : magnitude
            rest = rest[..<e]
        }
        guard rest.first?.isNumber == true, let plain = ExactDecimal(literal: String(rest)) else { return nil }
        let value = ExactDecimal(
            isNegative: isNegative, coefficient: plain.coefficient, exponent: plain.exponent + power)
        guard let bounded = try? value.bounded() else { return nil }
        self = bounded
    }

    public var isZero: Bool { coefficient.isZero }

    /// The power of ten of the leading digit (`123.4` → 2, `0.05` → -2).
    var adjustedExponent: Int { coefficient.count + exponent - 1 }

    /// The value with its sign flipped.
    public var negated: ExactDecimal {
        ExactDecimal(isNegative: !isNegative, coefficient: coefficient, exponent: exponent)
    }

    /// The value rounded to `digits` significant digits, half to even. `sticky` says that nonzero digits were
    /// already cut off below the coefficient (a division's remainder), which breaks a tie upwards.
    public func rounded(toSignificantDigits digits: Int, sticky: Bool = false) -> ExactDecimal {
        let drop = coefficient.count - digits
        guard drop > 0 else { return self }
        var (kept, cut) = coefficient.split(at: drop)
        let half = Natural(digits: [UInt8](repeating: 0, count: drop - 1) + [5])
        let order = Natural.compare(cut, half)
        let oddKept = (kept.digits.first ?? 0) % 2 == 1
        if order > 0 || (order == 0 && (sticky || oddKept)) { kept = kept + Natural(1) }
        return ExactDecimal(isNegative: isNegative, coefficient: kept, exponent: exponent + drop)
    }

    /// Applies the magnitude bounds: an error at 10^100 and above, zero below 10^-100.
    func bounded() throws(CalcMessage) -> ExactDecimal {
        if isZero { return self }
        if adjustedExponent >= Self.maximumExponent { throw .overflow }
        if adjustedExponent < -Self.maximumExponent { return .zero }
        return self
    }

    /// `a + b` rounded to ``workingDigits``.
    public static func sum(_ a: ExactDecimal, _ b: ExactDecimal) throws(CalcMessage) -> ExactDecimal {
        if a.isZero { return b }
        if b.isZero { return a }
        let exponent = min(a.exponent, b.exponent)
        let x = a.coefficient.shifted(by: a.exponent - exponent)
        let y = b.coefficient.shifted(by: b.exponent - exponent)
        let exact: ExactDecimal
        if a.isNegative == b.isNegative {
            exact = ExactDecimal(isNegative: a.isNegative, coefficient: x + y, exponent: exponent)
        } else if y < x {
            exact = ExactDecimal(isNegative: a.isNegative, coefficient: x - y, exponent: exponent)
        } else {
            exact = ExactDecimal(isNegative: b.isNegative, coefficient: y - x, exponent: exponent)
        }
        return try exact.rounded(toSignificantDigits: workingDigits).bounded()
    }

    /// `a - b` rounded to ``workingDigits``.
    public static func difference(_ a: ExactDecimal, _ b: ExactDecimal) throws(CalcMessage) -> ExactDecimal {
        try sum(a, b.negated)
    }

    /// `a × b` rounded to ``workingDigits``.
    public static func product(_ a: ExactDecimal, _ b: ExactDecimal) throws(CalcMessage) -> ExactDecimal {
        let exact = ExactDecimal(
            isNegative: a.isNegative != b.isNegative, coefficient: a.coefficient * b.coefficient,
            exponent: a.exponent + b.exponent)
        return try exact.rounded(toSignificantDigits: workingDigits).bounded()
    }

    /// `a ÷ b`: the exact quotient rounded to ``workingDigits`` (half to even, the remainder breaking ties).
    public static func quotient(_ a: ExactDecimal, _ b: ExactDecimal) throws(CalcMessage) -> ExactDecimal {
        if b.isZero { throw .divisionByZero }
        if a.isZero { return .zero }
        // Enough digits in the integer quotient to round it: at least workingDigits + 2.
        let scale = max(0, workingDigits + 2 + b.coefficient.count - a.coefficient.count)
        let (quotient, remainder) = Natural.divide(a.coefficient.shifted(by: scale), by: b.coefficient)
        let exact = ExactDecimal(
            isNegative: a.isNegative != b.isNegative, coefficient: quotient, exponent: a.exponent - scale - b.exponent)
        return try exact.rounded(toSignificantDigits: workingDigits, sticky: !remainder.isZero).bounded()
    }

    /// The value as the calculator shows it: plain decimal notation (`-0.25`, `10.9`, `1200`), or scientific
    /// notation (`1.5e+21`, `1e-7`) when the leading digit is at 10^21 or above, or at 10^-7 or below.
    public var description: String {
        if isZero { return "0" }
        let digits = coefficient.decimalString
        let adjusted = adjustedExponent
        let sign = isNegative ? "-" : ""
        if adjusted >= 21 || adjusted <= -7 {
            let mantissa = digits.count > 1 ? "\(digits.prefix(1)).\(digits.dropFirst())" : digits
            return "\(sign)\(mantissa)e\(adjusted >= 0 ? "+" : "-")\(abs(adjusted))"
        }
        if exponent >= 0 { return sign + digits + String(repeating: "0", count: exponent) }
        if adjusted >= 0 {
            let point = digits.index(digits.startIndex, offsetBy: adjusted + 1)
            return "\(sign)\(digits[..<point]).\(digits[point...])"
        }
        return "\(sign)0.\(String(repeating: "0", count: -adjusted - 1))\(digits)"
    }
}
