import Foundation
import KuraCalc

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// kura-calc: the seed calculator in a terminal, on the KuraCalc engine. One-shot with a formula on the command line,
// a keypad on a terminal, one formula per line from a pipe.

let usage = """
    usage: kura-calc [--lang en|ja] [FORMULA...]
      kura-calc '2.3+5.3+3.3'     print the result (10.9); the words of FORMULA are joined
      kura-calc                   the keypad: type digits . + - * / ( ) and a for Ans; Enter or = calculates,
                                  Backspace deletes, Esc clears; ←/→ select a number of the formula, type its new
                                  value and press Enter to calculate again; q or Ctrl-D quits
      echo '1/3*3' | kura-calc    one formula per line; Ans is the previous line's result
    Exact decimal arithmetic: each operation keeps 24 significant digits, results show 20 (both rounded half to
    even); values stay below 10^100. Messages are in Japanese when --lang or $LANG starts with "ja".
    Exit status: 0, 1 when a calculation failed, 2 for a usage error.
    """

/// Writes to standard output or standard error at once.
func emit(_ text: String, error: Bool = false) {
    (error ? FileHandle.standardError : FileHandle.standardOutput).write(Data(text.utf8))
}

var language = (getenv("LANG").map { String(cString: $0) } ?? "").hasPrefix("ja") ? "ja" : "en"
var words: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "-h", "--help":
        emit(usage + "\n")
        exit(0)
    case "--lang":
        guard let value = arguments.popFirst(), value == "en" || value == "ja" else {
            emit("kura-calc: --lang takes en or ja\n\(usage)\n", error: true)
            exit(2)
        }
        language = value
    case "--":
        words += arguments
        arguments = []
    default:
        // A formula may start with a minus sign, so only known options are options.
        words.append(argument)
    }
}

/// Calculates one formula's text; prints the result (stdout) or the error and notices (stderr).
func calculateLine(_ text: String, answer: ExactDecimal, language: String) -> ExactDecimal? {
    let (calculator, notices) = Calculator.calculate(text, answer: answer)
    for notice in Set(notices).sorted(by: { $0.rawValue < $1.rawValue }) {
        emit("note: \(notice.text(language: language))\n", error: true)
    }
    switch calculator.outcome {
    case .value(let value)?:
        emit("\(value)\n")
        return value
    case .error(let message)?:
        emit("error: \(message.text(language: language))\n", error: true)
        return nil
    case nil:
        return nil
    }
}

if !words.isEmpty {
    exit(calculateLine(words.joined(separator: " "), answer: .zero, language: language) == nil ? 1 : 0)
}

if isatty(0) == 0 {
    var answer = ExactDecimal.zero
    var failed = false
    while let line = readLine() {
        guard !line.allSatisfy(\.isWhitespace) else { continue }
        if let value = calculateLine(line, answer: answer, language: language) { answer = value } else { failed = true }
    }
    exit(failed ? 1 : 0)
}

var keypad = Keypad(language: language)
keypad.run()
