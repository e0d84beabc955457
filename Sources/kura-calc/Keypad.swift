import KuraCalc

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The interactive keypad: the terminal in raw mode, one screen line for the formula and one for the result.
struct Keypad {
    let language: String
    var calculator = Calculator()
    /// While a number of the formula is being edited: its position among the formula's numbers, and the new text.
    var selection: (ordinal: Int, text: String)?
    var message = ""

    init(language: String) {
        self.language = language
    }

    mutating func run() {
        var saved = termios()
        tcgetattr(0, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(0, TCSANOW, &raw)
        defer {
            tcsetattr(0, TCSANOW, &saved)
            emit("\n")
        }
        emit(
            language == "ja"
                ? "kura-calc — 数字 . + - * / ( )、a=Ans、Enter で計算、Backspace=DEL、Esc=AC、←→ で数を選んで編集、q で終了\n\n"
                : "kura-calc — digits . + - * / ( ), a = Ans, Enter calculates, Backspace = DEL, Esc = AC, ←/→ edit a number, q quits\n\n"
        )
        draw()
        while let byte = readByte() {
            if byte == UInt8(ascii: "q") || byte == 4 { return }
            if byte == 27 {
                // Escape alone clears; ESC [ C / ESC [ D are the arrow keys.
                var pending: UInt8 = 0
                if waitForInput(milliseconds: 50), let next = readByte(), next == UInt8(ascii: "["),
                    let arrow = readByte()
                {
                    pending = arrow
                }
                handleEscape(arrow: pending)
            } else {
                handle(Character(UnicodeScalar(byte)))
            }
            draw()
        }
    }

    private mutating func handleEscape(arrow: UInt8) {
        let numbers = calculator.tokens.filter { if case .number = $0 { true } else { false } }.map(\.text)
        switch arrow {
        case UInt8(ascii: "C"), UInt8(ascii: "D"):
            guard !numbers.isEmpty else { return }
            let step = arrow == UInt8(ascii: "C") ? 1 : -1
            let ordinal =
                selection.map { ($0.ordinal + step + numbers.count) % numbers.count }
                ?? (step > 0 ? 0 : numbers.count - 1)
            selection = (ordinal, numbers[ordinal])
        default:
            if selection != nil {
                selection = nil
            } else {
                calculator.press(.clear)
            }
            message = ""
        }
    }

    private mutating func handle(_ character: Character) {
        message = ""
        if var editing = selection {
            switch character {
            case "\n", "\r", "=":
                let notice = calculator.edit(number: editing.ordinal, to: editing.text)
                message = notice?.text(language: language) ?? ""
                selection = nil
            case "\u{7f}", "\u{8}":
                editing.text = String(editing.text.dropLast())
                selection = editing
            case "0"..."9", ".":
                editing.text.append(character)
                selection = editing
            default: break
            }
            return
        }
        let key: Key?
        switch character {
        case "\n", "\r", "=": key = .equals
        case "\u{7f}", "\u{8}": key = .delete
        case "a", "A": key = .answer
        case "c", "C": key = .clear
        default: key = Key(name: String(character))
        }
        guard let key else { return }
        if let notice = calculator.press(key) { message = notice.text(language: language) }
    }

    private func draw() {
        var formula = ""
        var ordinal = 0
        for token in calculator.tokens {
            if case .number = token {
                if let selection, selection.ordinal == ordinal {
                    formula += "\u{1b}[7m\(selection.text.isEmpty ? " " : selection.text)\u{1b}[0m"
                } else {
                    formula += token.text
                }
                ordinal += 1
            } else {
                formula += token.text
            }
        }
        let result: String
        switch calculator.outcome {
        case .value(let value)?: result = "= \(value)"
        case .error(let error)?: result = "! \(error.text(language: language))"
        case nil: result = message.isEmpty ? "" : "· \(message)"
        }
        // Two lines: go up to the formula line, rewrite both.
        emit("\u{1b}[1A\r\u{1b}[2K  \(formula.isEmpty ? "0" : formula)\n\r\u{1b}[2K  \(result)")
    }

    private func readByte() -> UInt8? {
        var byte: UInt8 = 0
        return read(0, &byte, 1) == 1 ? byte : nil
    }

    private func waitForInput(milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, milliseconds) > 0
    }
}
