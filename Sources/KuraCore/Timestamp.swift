import KuraModel

#if canImport(Glibc)
    import Glibc
#endif

/// Wall-clock time helpers: microseconds since the Unix epoch and RFC 3339 / IMF-fixdate formatting
/// without Foundation, cheap enough for every request.
public enum Timestamp {
    /// Microseconds since 1970-01-01T00:00:00Z.
    public static func nowMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// Monotonic nanoseconds, for durations.
    public static func monotonicNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    private static func brokenDown(_ seconds: Int64) -> tm {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        return parts
    }

    /// `2026-11-29T15:41:26.123456Z` with `fractionDigits` (0–6) digits of the second.
    public static func appendRFC3339(_ micros: Int64, to out: inout [UInt8], fractionDigits: Int = 6) {
        RFC3339.append(micros, to: &out, fractionDigits: fractionDigits)
    }

    /// RFC 3339 string for `micros`, with microseconds.
    public static func rfc3339(_ micros: Int64) -> String { RFC3339.format(micros) }

    /// The HTTP `Date` format (IMF-fixdate): `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func httpDate(seconds: Int64) -> String {
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let t = brokenDown(seconds)
        var out: [UInt8] = []
        out.append(contentsOf: days[Int(t.tm_wday)].utf8)
        out.append(contentsOf: ", ".utf8)
        appendDigits(Int(t.tm_mday), 2, &out)
        out.append(0x20)
        out.append(contentsOf: months[Int(t.tm_mon)].utf8)
        out.append(0x20)
        appendDigits(Int(t.tm_year) + 1900, 4, &out)
        out.append(0x20)
        appendDigits(Int(t.tm_hour), 2, &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(Int(t.tm_min), 2, &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(Int(t.tm_sec), 2, &out)
        out.append(contentsOf: " GMT".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    private static func appendDigits(_ value: Int, _ width: Int, _ out: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var v = value
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8((v / divisor) % 10))
            v %= divisor
            divisor /= 10
        }
    }
}
