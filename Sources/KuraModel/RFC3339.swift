/// RFC 3339 timestamps, the API's time format: parses `2026-01-02T03:04:05.123456Z` (fractions down to microseconds,
/// `Z` or `±hh:mm`) and formats microseconds since the Unix epoch as UTC, in pure arithmetic (no `gmtime`, no
/// Foundation), cheap enough for every document served.
public enum RFC3339 {
    /// Microseconds since the Unix epoch, or `nil` if malformed, an impossible date (`02-31`), a leap second, or
    /// more precise than a microsecond (digits past the sixth must be zeros).
    public static func parse(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        var i = 0
        func number(_ width: Int) -> Int64? {
            guard i + width <= b.count else { return nil }
            var value: Int64 = 0
            for _ in 0..<width {
                guard b[i] >= 48 && b[i] <= 57 else { return nil }
                value = value * 10 + Int64(b[i] - 48)
                i += 1
            }
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard i < b.count, characters.utf8.contains(b[i]) else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            expect("Tt "), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
            let second = number(2)
        else { return nil }
        // No day past the month's end and no leap second: either would silently become another time.
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
            second < 60
        else { return nil }
        var micros: Int64 = 0
        if i < b.count && b[i] == UInt8(ascii: ".") {
            i += 1
            var digits = 0
            while i < b.count && b[i] >= 48 && b[i] <= 57 {
                if digits < 6 {
                    micros = micros * 10 + Int64(b[i] - 48)
                } else if b[i] != 48 {
                    return nil  // below a microsecond: Kura's times could not compare with it exactly
                }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 6) { micros *= 10 }
        }
        var offset: Int64 = 0
        if expect("Zz") {
        } else if i < b.count && (b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-")) {
            let sign: Int64 = b[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let oh = number(2), expect(":"), let om = number(2), oh < 24, om < 60 else { return nil }
            offset = sign * (oh * 3600 + om * 60)
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return seconds * 1_000_000 + micros
    }

    /// The length of a month, so that a day past it (`02-31`) is refused rather than rolled into the next month.
    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Appends `2026-11-29T15:41:26.123456Z` for `micros` (microseconds since the Unix epoch, UTC), with
    /// `fractionDigits` (0–6) digits of the second.
    public static func append(_ micros: Int64, to out: inout [UInt8], fractionDigits: Int = 6) {
        var days = micros / 86_400_000_000
        var rest = micros % 86_400_000_000
        if rest < 0 {
            rest += 86_400_000_000
            days -= 1
        }
        let (year, month, day) = civilFromDays(days)
        let seconds = rest / 1_000_000
        let fraction = rest % 1_000_000
        appendDigits(year, 4, &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(month, 2, &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(day, 2, &out)
        out.append(UInt8(ascii: "T"))
        appendDigits(seconds / 3600, 2, &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(seconds / 60 % 60, 2, &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(seconds % 60, 2, &out)
        if fractionDigits > 0 {
            out.append(UInt8(ascii: "."))
            var divisor: Int64 = 100_000
            for _ in 0..<min(fractionDigits, 6) {
                out.append(UInt8(ascii: "0") + UInt8((fraction / divisor) % 10))
                divisor /= 10
            }
        }
        out.append(UInt8(ascii: "Z"))
    }

    /// `micros` (microseconds since the Unix epoch) as an RFC 3339 UTC string with microseconds.
    public static func format(_ micros: Int64) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(27)
        append(micros, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
    public static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// `value` in decimal, zero-padded to `width` digits (a negative year keeps its digits' magnitude).
    private static func appendDigits(_ value: Int64, _ width: Int, _ out: inout [UInt8]) {
        var divisor: Int64 = 1
        for _ in 1..<width { divisor *= 10 }
        var v = value < 0 ? -value : value
        if v >= divisor * 10 { divisor = 1; while divisor * 10 <= v { divisor *= 10 } }
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8((v / divisor) % 10))
            v %= divisor
            divisor /= 10
        }
    }
}
