import Foundation
import KuraCalc
import Testing

/// apps/calc/cases.json: the cases the web app's engine runs too (Tests/Browser/suite_calc.py).
@Suite struct SharedCaseTests {
    struct Case: Decodable, CustomStringConvertible {
        var name: String
        var formula: String?
        var keys: [String]?
        var ans: String?
        var display: String
        var result: String?
        var error: String?
        var notices: [String]?
        var answer: String?
        var description: String { name }
    }

    struct File: Decodable {
        var cases: [Case]
    }

    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("apps/calc/cases.json")

    static func load() throws -> [Case] {
        try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).cases
    }

    /// Runs a case; returns what the calculator showed, in the case's terms.
    static func run(_ test: Case) throws -> (
        display: String, result: String?, error: String?, notices: [String], answer: String
    ) {
        let answer = try #require(ExactDecimal(literal: test.ans ?? "0"))
        var calculator: Calculator
        var notices: [CalcMessage] = []
        if let formula = test.formula {
            (calculator, notices) = Calculator.calculate(formula, answer: answer)
        } else {
            calculator = Calculator(answer: answer)
            for name in try #require(test.keys) {
                if name.hasPrefix("edit:") {
                    let parts = name.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
                    let ordinal = try #require(Int(parts[1]))
                    if let notice = calculator.edit(number: ordinal, to: String(parts[2])) { notices.append(notice) }
                } else {
                    let key = try #require(Key(name: name), "unknown key \(name)")
                    if let notice = calculator.press(key) { notices.append(notice) }
                }
            }
        }
        var (result, error): (String?, String?) = (nil, nil)
        switch calculator.outcome {
        case .value(let value)?: result = value.description
        case .error(let message)?: error = message.rawValue
        case nil: break
        }
        return (calculator.formula, result, error, notices.map(\.rawValue), calculator.answer.description)
    }

    @Test func theFileHasCasesOfEveryKind() throws {
        let cases = try Self.load()
        #expect(cases.count > 80)
        #expect(Set(cases.map(\.name)).count == cases.count, "case names are unique")
        let errors = Set(cases.compactMap(\.error))
        for code in ["unclosedParenthesis", "incomplete", "divisionByZero", "overflow", "invalidCharacter", "empty"] {
            #expect(errors.contains(code), "a case ends with \(code)")
        }
        let notices = Set(cases.flatMap { $0.notices ?? [] })
        // Every notice, and the edits' own errors, which the keypad reports as notices.
        for message in CalcMessage.allCases
        where !message.isError || message == .invalidNumber || message == .noSuchNumber {
            #expect(notices.contains(message.rawValue), "a case shows \(message)")
        }
        for test in cases {
            #expect((test.formula == nil) != (test.keys == nil), "\(test.name): a formula or keys")
            for code in [test.error].compactMap({ $0 }) + (test.notices ?? []) {
                #expect(CalcMessage(rawValue: code) != nil, "\(test.name): unknown code \(code)")
            }
        }
    }

    @Test func everyCase() throws {
        for test in try Self.load() {
            let shown = try Self.run(test)
            #expect(shown.display == test.display, "\(test.name): display")
            #expect(shown.result == test.result, "\(test.name): result")
            #expect(shown.error == test.error, "\(test.name): error")
            #expect(shown.notices == (test.notices ?? []), "\(test.name): notices")
            if let answer = test.answer { #expect(shown.answer == answer, "\(test.name): Ans afterwards") }
        }
    }
}
