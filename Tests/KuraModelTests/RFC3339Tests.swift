import KuraModel
import Testing

/// RFC 3339 formatting in pure arithmetic (civil-from-days) and parsing, the API's time format.
@Suite struct RFC3339Tests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000000Z"),
        (1, "1970-01-01T00:00:00.000001Z"),
        (-1, "1969-12-31T23:59:59.999999Z"),
        (951_782_400_000_000, "2000-02-29T00:00:00.000000Z"),
        (1_795_966_886_123_456, "2026-11-29T15:41:26.123456Z"),
        (253_402_300_799_999_999, "9999-12-31T23:59:59.999999Z"),
        (-62_135_596_800_000_000, "0001-01-01T00:00:00.000000Z"),
    ])
    func formats(_ micros: Int64, _ text: String) {
        #expect(RFC3339.format(micros) == text)
        #expect(RFC3339.parse(text) == micros)
    }

    @Test func fractionDigitsAreCut() {
        var out: [UInt8] = []
        RFC3339.append(1_795_966_886_123_456, to: &out, fractionDigits: 3)
        #expect(String(decoding: out, as: UTF8.self) == "2026-11-29T15:41:26.123Z")
        out = []
        RFC3339.append(1_795_966_886_123_456, to: &out, fractionDigits: 0)
        #expect(String(decoding: out, as: UTF8.self) == "2026-11-29T15:41:26Z")
    }

    @Test func everyDayOfFourHundredYearsRoundTrips() {
        // One Gregorian cycle (146 097 days) from 1900 on, at noon: format then parse gives the same instant.
        let start: Int64 = -25_567
        var mismatches: [String] = []
        for day in stride(from: start, to: start + 146_097, by: 1) {
            let micros = day * 86_400_000_000 + 43_200_000_000
            if RFC3339.parse(RFC3339.format(micros)) != micros { mismatches.append(RFC3339.format(micros)) }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test(arguments: ["2026-02-29T00:00:00Z", "2026-01-01T00:00:60Z", "2026-01-01T00:00:00.0000001Z", "2026-01-01"])
    func refusesImpossibleOrTooPreciseTimes(_ text: String) {
        #expect(RFC3339.parse(text) == nil)
    }
}
