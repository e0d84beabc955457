import Foundation
internal import KuraModel

/// The server's time format, `2026-11-29T15:59:28.039012Z` (UTC, microseconds), between `Date` and text. The
/// formatting and parsing are KuraModel's (the server's own), so the SDK reads and writes exactly what the server
/// does; this only converts microseconds to and from `Date`.
enum RFC3339 {
    static func string(from date: Date) -> String {
        KuraModel.RFC3339.format(Int64((date.timeIntervalSince1970 * 1_000_000).rounded()))
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; `nil` for anything the server would refuse too.
    static func date(from text: String) -> Date? {
        guard let micros = KuraModel.RFC3339.parse(text) else { return nil }
        var seconds = micros / 1_000_000
        var fraction = micros % 1_000_000
        if fraction < 0 {
            fraction += 1_000_000
            seconds -= 1
        }
        // Whole seconds and the fraction apart, so the microseconds are not lost to rounding of a large sum.
        return Date(timeIntervalSince1970: Double(seconds) + Double(fraction) / 1_000_000)
    }
}
