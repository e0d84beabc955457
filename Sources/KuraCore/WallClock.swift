#if canImport(Glibc)
    import Glibc
#endif

/// Wall-clock time without Foundation, cheap enough for every request: microseconds since the Unix epoch and the
/// HTTP `Date` format. RFC 3339 formatting is `RFC3339` in KuraModel.
public enum WallClock {
    /// Microseconds since 1970-01-01T00:00:00Z.
    public static func nowMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    private static func brokenDown(_ seconds: Int64) -> tm {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        return parts
    }

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
