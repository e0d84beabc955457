import Foundation
import Testing

@testable import KuraCalc

/// The decimal type on its own: literals, printing, rounding half to even, the bounds.
@Suite struct ExactDecimalTests {
    static func number(_ text: String) -> ExactDecimal {
        text.hasPrefix("-") ? ExactDecimal(literal: String(text.dropFirst()))!.negated : ExactDecimal(literal: text)!
    }

    @Test(arguments: [
        ("12", "12"), ("12.50", "12.5"), ("007", "7"), (".5", "0.5"), ("5.", "5"), ("0.000", "0"), ("1200", "1200"),
        ("0.0000001", "1e-7"), ("0.00000123", "0.00000123"), ("1000000000000000000000", "1e+21"),
        ("123456789012345678901234", "1.23456789012345678901234e+23"),
    ])
    func literalsPrintCanonically(_ literal: String, _ shown: String) {
        #expect(ExactDecimal(literal: literal)?.description == shown)
    }

    /// What is printed reads back (as the web app restores Ans from the history).
    @Test(arguments: ["0", "10.9", "-0.25", "1e-7", "-9.9999999999999999999e+21", "1e+99", "100000000000000000000"])
    func printedValuesReadBack(_ text: String) {
        #expect(ExactDecimal(text)?.description == text)
    }

    @Test(arguments: ["", "-", "e+5", "1e5", "1e+", "1e+100", "+1", "--1", ".5e+2", "1.5e+2.0", "1e+١"])
    func notPrintedValues(_ text: String) {
        #expect(ExactDecimal(text) == nil)
    }

    @Test(arguments: ["", ".", "1.2.3", "-1", "1e5", "١٢", " 1"])
    func notLiterals(_ text: String) {
        #expect(ExactDecimal(literal: text) == nil)
    }

    @Test(arguments: [
        ("1.25", 2, "1.2"), ("1.35", 2, "1.4"), ("1.251", 2, "1.3"), ("-1.25", 2, "-1.2"), ("-1.35", 2, "-1.4"),
        ("9.95", 2, "10"), ("999.5", 3, "1000"), ("0.00125", 2, "0.0012"), ("123", 5, "123"),
    ])
    func roundsHalfToEven(_ value: String, _ digits: Int, _ expected: String) {
        #expect(Self.number(value).rounded(toSignificantDigits: digits).description == expected)
    }

    @Test func aTieWithARemainderRoundsUp() {
        #expect(Self.number("1.25").rounded(toSignificantDigits: 2, sticky: true).description == "1.3")
    }

    @Test func arithmeticIsExactWithinTheWorkingDigits() throws {
        let sum = try ExactDecimal.sum(ExactDecimal.sum(Self.number("2.3"), Self.number("5.3")), Self.number("3.3"))
        #expect(sum.description == "10.9")
        #expect(try ExactDecimal.difference(Self.number("0.3"), Self.number("0.1")).description == "0.2")
        #expect(try ExactDecimal.sum(Self.number("-5"), Self.number("5")).description == "0")
        #expect(try ExactDecimal.product(Self.number("-1.5"), Self.number("-1.5")).description == "2.25")
        // Sums of very different magnitudes round to 24 digits.
        let big = Self.number("1" + String(repeating: "0", count: 30))
        #expect(try ExactDecimal.sum(big, Self.number("1")).description == "1e+30")
        #expect(try ExactDecimal.sum(big, Self.number("6000000")).description == "1.00000000000000000000001e+30")
    }

    @Test func quotientsRoundToTheWorkingDigits() throws {
        #expect(
            try ExactDecimal.quotient(Self.number("1"), Self.number("3")).description == "0.333333333333333333333333")
        #expect(
            try ExactDecimal.quotient(Self.number("2"), Self.number("3")).description == "0.666666666666666666666667")
        #expect(try ExactDecimal.quotient(Self.number("-7"), Self.number("2")).description == "-3.5")
        #expect(throws: CalcMessage.divisionByZero) { try ExactDecimal.quotient(Self.number("1"), .zero) }
    }

    @Test func theBounds() throws {
        let big = Self.number("1" + String(repeating: "0", count: 50))
        #expect(throws: CalcMessage.overflow) { try ExactDecimal.product(big, big) }
        let almost = Self.number("1" + String(repeating: "0", count: 49))
        #expect(try ExactDecimal.product(big, almost).description == "1e+99")
        // 10^-100 is kept; below it, 0.
        let small = Self.number("0." + String(repeating: "0", count: 49) + "1")
        #expect(try ExactDecimal.product(small, small).description == "1e-100")
        let smaller = Self.number("0." + String(repeating: "0", count: 50) + "1")
        #expect(try ExactDecimal.product(small, smaller).description == "0")
    }

    @Test func naturalLongDivision() {
        let (quotient, remainder) = Natural.divide(Natural(decimal: "121932631112635269")!, by: Natural(987_654_321))
        #expect(quotient.decimalString == "123456789")
        #expect(remainder.isZero)
        let (q, r) = Natural.divide(Natural(100), by: Natural(7))
        #expect((q.decimalString, r.decimalString) == ("14", "2"))
    }

    @Test func everyMessageHasBothLanguages() {
        for message in CalcMessage.allCases {
            #expect(!message.text(language: "en").isEmpty)
            #expect(message.text(language: "ja") != message.text(language: "en"))
        }
    }

    /// The web app shows the same messages (apps/calc/web/strings.js).
    @Test func theWebAppHasTheSameMessages() throws {
        let url = SharedCaseTests.url.deletingLastPathComponent().appendingPathComponent("web/strings.js")
        let strings = try String(contentsOf: url, encoding: .utf8)
        for message in CalcMessage.allCases {
            for language in ["en", "ja"] {
                let line = "\(message.rawValue): '\(message.text(language: language))',"
                #expect(strings.contains(line), "strings.js lacks \(line)")
            }
        }
    }
}
