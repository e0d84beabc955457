import KuraCore
import KuraModel

/// One parsed HTTP request. Values only: the engine builds it, handlers read it.
public struct Request: Sendable {
    public let method: HTTPMethod
    /// The request target as sent (`/api/docs/a%20b?limit=2`).
    public let target: String
    public let headers: HTTPHeaders
    public var body: [UInt8]
    /// `X-Request-Id` of this request: the client's if it sent a sane one, otherwise generated.
    public let requestID: String
    public let httpVersion: (major: Int, minor: Int)
    /// Route parameters filled in by the router (percent-decoded).
    public var parameters: [String: String] = [:]
    /// The client's IP address (no port), for rate limits and logs: the TCP peer's, or, when the peer is a trusted
    /// proxy (`http.trustedProxies`), the client its forwarding header names (`TrustedProxies.clientAddress`).
    public var remoteAddress: String = ""
    /// The TCP peer's IP address (no port): the proxy, for a request that came through one.
    public var peerAddress: String = ""

    public init(
        method: HTTPMethod, target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        requestID: String = "test", httpVersion: (major: Int, minor: Int) = (1, 1)
    ) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.requestID = requestID
        self.httpVersion = httpVersion
    }

    /// The path part of the target, still percent-encoded.
    public var path: Substring {
        if let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) { return target[..<q] }
        return target[...]
    }

    /// The raw query string after `?`, if any.
    public var queryString: Substring? {
        guard let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        return target[target.utf8.index(after: q)...]
    }

    /// The first value of query parameter `name`, percent-decoded (`+` as space), or nil.
    public func query(_ name: String) -> String? {
        queryString.flatMap { URLEncodedForm.value(of: name, in: $0) }
    }

    /// The route parameter `name`; throws 400 if the route has none (a programming error surfaced safely).
    public func parameter(_ name: String) throws -> String {
        guard let value = parameters[name] else { throw APIError.badRequest("missing path parameter '\(name)'") }
        return value
    }

    /// The bearer token from `Authorization: Bearer …`, if present: what follows `Bearer ` (any case), without
    /// surrounding spaces or tabs. Walks the value's bytes and copies only the token: this is on every request.
    public var bearerToken: String? {
        guard let value = headers["Authorization"] else { return nil }
        let utf8 = value.utf8
        let prefix = "bearer ".utf8
        guard utf8.count > prefix.count,
            zip(utf8, prefix).allSatisfy({ $0 == $1 || ($0 | 0x20 == $1 && $1 >= UInt8(ascii: "a")) })
        else { return nil }
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var start = utf8.index(utf8.startIndex, offsetBy: prefix.count)
        var end = utf8.endIndex
        while start < end, isBlank(utf8[start]) { start = utf8.index(after: start) }
        while start < end, isBlank(utf8[utf8.index(before: end)]) { end = utf8.index(before: end) }
        return String(value[start..<end])
    }
}

/// `application/x-www-form-urlencoded` text: query strings and HTML form bodies.
public enum URLEncodedForm {
    /// The first value of field `name` in `text`, percent-decoded with `+` as space; nil when absent.
    public static func value(of name: String, in text: Substring) -> String? {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard PercentDecoding.decode(parts[0], plusIsSpace: true) == name else { continue }
            return parts.count > 1 ? PercentDecoding.decode(parts[1], plusIsSpace: true) : ""
        }
        return nil
    }
}

/// Percent-decoding of URL components (RFC 3986 §2.1).
public enum PercentDecoding {
    /// Decodes `%XX` escapes; returns nil for a malformed escape or bytes that are not UTF-8.
    public static func decode(_ s: Substring, plusIsSpace: Bool = false) -> String? {
        let utf8 = s.utf8
        if !utf8.contains(UInt8(ascii: "%")) && !(plusIsSpace && utf8.contains(UInt8(ascii: "+"))) {
            return String(s)
        }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var i = utf8.startIndex
        while i < utf8.endIndex {
            let byte = utf8[i]
            if byte == UInt8(ascii: "%") {
                let h = utf8.index(after: i)
                guard h < utf8.endIndex, utf8.index(after: h) < utf8.endIndex,
                    let hi = hexValue(utf8[h]), let lo = hexValue(utf8[utf8.index(after: h)])
                else { return nil }
                out.append(hi << 4 | lo)
                i = utf8.index(h, offsetBy: 2)
            } else {
                out.append(plusIsSpace && byte == UInt8(ascii: "+") ? 0x20 : byte)
                i = utf8.index(after: i)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
