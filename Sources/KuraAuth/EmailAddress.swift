import KuraCore
import KuraModel

/// A validated, normalised email address.
///
/// The rule (deliberately simpler than RFC 5322, and the same on every path):
/// - surrounding whitespace is trimmed; the whole address is at most 254 bytes, ASCII only;
/// - exactly one `@`; the local part is 1–64 characters from letters, digits and ``!#$%&'*+-/=?^_`{|}~.``, with no
///   leading, trailing or doubled `.` (no quoted local parts, no comments);
/// - the domain is lower-cased and has at least two dot-separated labels of 1–63 letters, digits and `-`, not starting
///   or ending with `-`; the last label is not all digits (so no IP literals). Internationalised domains are accepted
///   in their punycode (`xn--`) form.
///
/// `value` keeps the local part's case as typed (some servers honour it); `key`, the whole address lower-cased, is
/// what uniqueness is decided on, so `Ann@x.io` and `ann@X.IO` are one account.
public struct EmailAddress: Sendable, Hashable, CustomStringConvertible {
    /// The normalised address: local part as typed, domain lower-cased.
    public let value: String
    /// The case-insensitive identity of the address (all lower-case).
    public let key: String

    private static let localSpecials = Set("!#$%&'*+-/=?^_`{|}~.".utf8)

    /// Validates and normalises `raw`; throws 400 `INVALID_EMAIL`.
    public init(_ raw: String) throws {
        let trimmed = raw.trimmingWhitespace()
        let bytes = Array(trimmed.utf8)
        guard !bytes.isEmpty else { throw APIError.invalidEmail("an email address is required") }
        guard bytes.count <= 254, bytes.allSatisfy({ $0 < 0x80 }) else {
            throw APIError.invalidEmail("the email address is too long or not ASCII")
        }
        let parts = bytes.split(separator: UInt8(ascii: "@"), omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw APIError.invalidEmail("the email address must contain exactly one @") }
        let local = Array(parts[0])
        let domain = parts[1].map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
        guard Self.isValidLocal(local) else { throw APIError.invalidEmail("the part before @ is not valid") }
        guard Self.isValidDomain(domain) else { throw APIError.invalidEmail("the domain is not valid") }
        value = String(decoding: local + [UInt8(ascii: "@")] + domain, as: UTF8.self)
        key = value.asciiLowercased()
    }

    public var description: String { value }

    private static func isValidLocal(_ local: [UInt8]) -> Bool {
        guard (1...64).contains(local.count), local.first != UInt8(ascii: "."), local.last != UInt8(ascii: ".")
        else { return false }
        var previous: UInt8 = 0
        for byte in local {
            let isAlnum = isLetterOrDigit(byte)
            guard isAlnum || localSpecials.contains(byte) else { return false }
            if byte == UInt8(ascii: "."), previous == UInt8(ascii: ".") { return false }
            previous = byte
        }
        return true
    }

    private static func isValidDomain(_ domain: [UInt8]) -> Bool {
        let labels = domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        for label in labels {
            guard (1...63).contains(label.count), label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-"),
                label.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: "-") })
            else { return false }
        }
        return !labels.last!.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[start...end])
    }

    func asciiLowercased() -> String {
        String(decoding: utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
