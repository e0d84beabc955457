import Foundation
internal import KuraModel

/// A point in time with microsecond precision, as Firestore's `Timestamp`: what `data()` and `get(_:)` give for
/// a time field (one written with `FieldValue.serverTimestamp()`, a `Date` or a `Timestamp`). The server has no
/// time type; times are RFC 3339 strings in its own format (`2026-11-29T15:59:28.039012Z`), and exactly those
/// strings read back as `Timestamp`s (`KuraValue` keeps them as `.string`).
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Whole seconds since 1970-01-01T00:00:00Z.
    public let seconds: Int64
    /// The fraction of the second, in nanoseconds (0 ..< 1_000_000_000); the server keeps microseconds.
    public let nanoseconds: Int32

    /// The time `seconds` (since 1970) and `nanoseconds` (0 ..< 1e9) say.
    public init(seconds: Int64, nanoseconds: Int32) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// `date`, to the microsecond.
    public init(date: Date) {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        var seconds = micros / 1_000_000
        var rest = micros % 1_000_000
        if rest < 0 {
            rest += 1_000_000
            seconds -= 1
        }
        self.init(seconds: seconds, nanoseconds: Int32(rest * 1000))
    }

    /// The current time.
    public init() { self.init(date: Date()) }

    /// The server's RFC 3339 text for a time (`nil` for anything else).
    init?(rfc3339 text: String) {
        guard Self.isServerFormat(text), let date = RFC3339.date(from: text) else { return nil }
        self.init(date: date)
    }

    /// This time as a `Date`.
    public func dateValue() -> Date {
        Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000)
    }

    /// The RFC 3339 text the server stores (microseconds, UTC).
    public var rfc3339: String { RFC3339.string(from: dateValue()) }

    public var description: String { "Timestamp(\(rfc3339))" }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }

    /// Decodes the server's RFC 3339 text.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = RFC3339.date(from: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected an RFC 3339 time")
        }
        self.init(date: date)
    }

    /// Encodes as the server's RFC 3339 text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rfc3339)
    }

    /// Exactly `YYYY-MM-DDTHH:MM:SS.ffffffZ`, the shape `RFC3339.string(from:)` writes: only such strings are read
    /// back as times, so ordinary text (even other RFC 3339 spellings) stays a `String`.
    static func isServerFormat(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 27 else { return false }
        for (index, byte) in bytes.enumerated() {
            let expected: UInt8? =
                switch index {
                case 4, 7: UInt8(ascii: "-")
                case 10: UInt8(ascii: "T")
                case 13, 16: UInt8(ascii: ":")
                case 19: UInt8(ascii: ".")
                case 26: UInt8(ascii: "Z")
                default: nil
                }
            if let expected {
                guard byte == expected else { return false }
            } else {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return false }
            }
        }
        return true
    }
}

extension KuraValue {
    /// A time, stored as the server's RFC 3339 text.
    public init(_ timestamp: Timestamp) { self = .string(timestamp.rfc3339) }

    /// A time string in the server's format (what `FieldValue.serverTimestamp()` stores) as a `Timestamp`.
    public var timestampValue: Timestamp? { stringValue.flatMap(Timestamp.init(rfc3339:)) }
}
