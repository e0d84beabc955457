/// A non-negative integer of any size, kept as decimal digits (least significant first, no leading zeros; zero has
/// none). Decimal digits make rounding to significant digits and printing direct; the calculator's numbers have a few
/// dozen digits, so digit-by-digit arithmetic is fast enough.
struct Natural: Equatable, Sendable {
    /// Decimal digits, least significant first; empty for zero.
    private(set) var digits: [UInt8]

    static let zero = Natural(digits: [])

    init(digits: [UInt8]) {
        var digits = digits
        while digits.last == 0 { digits.removeLast() }
        self.digits = digits
    }

    /// `value` as a natural number.
    init(_ value: Int) {
        precondition(value >= 0)
        var rest = value
        var digits: [UInt8] = []
        while rest > 0 {
            digits.append(UInt8(rest % 10))
            rest /= 10
        }
        self.init(digits: digits)
    }

    /// Parses a string of ASCII digits (most significant first); nil if it holds anything else.
    init?(decimal text: Substring) {
        var digits: [UInt8] = []
        for scalar in text.unicodeScalars.reversed() {
            guard scalar.value >= 48, scalar.value <= 57 else { return nil }
            digits.append(UInt8(scalar.value - 48))
        }
        self.init(digits: digits)
    }

    var isZero: Bool { digits.isEmpty }

    /// How many decimal digits (0 for zero).
    var count: Int { digits.count }

    /// The digits most significant first ("0" for zero).
    var decimalString: String {
        digits.isEmpty ? "0" : String(decoding: digits.reversed().map { $0 + 48 }, as: UTF8.self)
    }

    /// `self × 10^places`.
    func shifted(by places: Int) -> Natural {
        isZero || places == 0 ? self : Natural(digits: [UInt8](repeating: 0, count: places) + digits)
    }

    /// Splits off the lowest `places` digits: `(self / 10^places, self % 10^places)`.
    func split(at places: Int) -> (high: Natural, low: Natural) {
        if places >= digits.count { return (.zero, self) }
        return (Natural(digits: Array(digits[places...])), Natural(digits: Array(digits[..<places])))
    }

    static func < (a: Natural, b: Natural) -> Bool { compare(a, b) < 0 }

    /// -1, 0 or 1 as `a` is less than, equal to or greater than `b`.
    static func compare(_ a: Natural, _ b: Natural) -> Int {
        if a.digits.count != b.digits.count { return a.digits.count < b.digits.count ? -1 : 1 }
        for index in stride(from: a.digits.count - 1, through: 0, by: -1) where a.digits[index] != b.digits[index] {
            return a.digits[index] < b.digits[index] ? -1 : 1
        }
        return 0
    }

    static func + (a: Natural, b: Natural) -> Natural {
        var result: [UInt8] = []
        result.reserveCapacity(max(a.count, b.count) + 1)
        var carry: UInt8 = 0
        for index in 0..<max(a.count, b.count) {
            let sum = (index < a.count ? a.digits[index] : 0) + (index < b.count ? b.digits[index] : 0) + carry
            result.append(sum % 10)
            carry = sum / 10
        }
        if carry > 0 { result.append(carry) }
        return Natural(digits: result)
    }

    /// `a - b`; `a` must not be less than `b`.
    static func - (a: Natural, b: Natural) -> Natural {
        precondition(!(a < b))
        var result: [UInt8] = []
        result.reserveCapacity(a.count)
        var borrow: Int = 0
        for index in 0..<a.count {
            var difference = Int(a.digits[index]) - Int(index < b.count ? b.digits[index] : 0) - borrow
            borrow = difference < 0 ? 1 : 0
            if difference < 0 { difference += 10 }
            result.append(UInt8(difference))
        }
        return Natural(digits: result)
    }

    static func * (a: Natural, b: Natural) -> Natural {
        if a.isZero || b.isZero { return .zero }
        var result = [Int](repeating: 0, count: a.count + b.count)
        for (i, x) in a.digits.enumerated() where x != 0 {
            for (j, y) in b.digits.enumerated() { result[i + j] += Int(x) * Int(y) }
        }
        var carry = 0
        for index in result.indices {
            let value = result[index] + carry
            result[index] = value % 10
            carry = value / 10
        }
        return Natural(digits: result.map { UInt8($0) })
    }

    /// Long division: `(a / b, a % b)`; `b` must not be zero.
    static func divide(_ a: Natural, by b: Natural) -> (quotient: Natural, remainder: Natural) {
        precondition(!b.isZero)
        var quotient: [UInt8] = []
        var remainder = Natural.zero
        for digit in a.digits.reversed() {
            remainder = Natural(digits: [digit] + remainder.digits)
            var count: UInt8 = 0
            while !(remainder < b) {
                remainder = remainder - b
                count += 1
            }
            quotient.append(count)
        }
        return (Natural(digits: quotient.reversed()), remainder)
    }
}
