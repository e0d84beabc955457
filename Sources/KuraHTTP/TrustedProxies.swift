/// The reverse proxies whose word on the client's address the server takes (`http.trustedProxies`), and the one
/// rule that turns a request's TCP peer and forwarding header into the client address that per-address limits and
/// logs use (`Request.remoteAddress`).
///
/// Only a request whose TCP peer lies in `ranges` is looked at further: its forwarding header (`header`,
/// `X-Forwarded-For` by default, or RFC 7239's `Forwarded`) lists the hops it came through, each proxy appending the
/// address it received the request from. Walking that list from the right, past every address that is itself a
/// trusted proxy, the first other address is the client: every hop to its right was added by a proxy the operator
/// trusts, and whatever lies to its left was sent by the client and may be made up. A header that cannot be read
/// at that point (garbage, `unknown`, an obfuscated `_hidden` identifier) leaves the peer as the client. A request
/// from any other peer is keyed on its peer, whatever it sends.
public struct TrustedProxies: Sendable {
    /// The blocks trusted; empty (the default) trusts none, and the headers are never read.
    public var ranges: [IPAddressRange]
    /// The header the proxies append to: `X-Forwarded-For` (or another with its comma-separated form, such as
    /// `X-Real-IP`), or `Forwarded` for RFC 7239's `for=` parameters.
    public var header: String

    public init(ranges: [IPAddressRange] = [], header: String = "X-Forwarded-For") {
        self.ranges = ranges
        self.header = header
    }

    /// Parses the `http.trustedProxies` setting: CIDR blocks or addresses separated by commas or spaces (an empty
    /// text trusts none).
    public static func parseRanges(_ text: String) throws(TrustedProxiesError) -> [IPAddressRange] {
        var ranges: [IPAddressRange] = []
        for item in text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            guard let range = IPAddressRange(item) else {
                throw TrustedProxiesError("'\(item)' is not an address or CIDR block (192.0.2.0/24, 2001:db8::/32)")
            }
            ranges.append(range)
        }
        return ranges
    }

    /// Whether `address` (the text of one) lies in a trusted block.
    public func trusts(_ address: String) -> Bool {
        guard !ranges.isEmpty, let parsed = IPAddress(address) else { return false }
        return trusts(parsed)
    }

    func trusts(_ address: IPAddress) -> Bool { ranges.contains { $0.contains(address) } }

    /// The client address of a request that came from `peer` with `headers` (see the type's comment): `peer`
    /// itself unless `peer` is trusted and the header names an address beyond the trusted hops.
    public func clientAddress(peer: String, headers: HTTPHeaders) -> String {
        guard trusts(peer) else { return peer }
        return forwardedClient(in: headers) ?? peer
    }

    /// The last untrusted hop of the forwarding header (or, when every hop is trusted, the leftmost); nil when the
    /// header is absent or unreadable where the walk reaches it.
    func forwardedClient(in headers: HTTPHeaders) -> String? {
        let values = headers.values(header)
        guard !values.isEmpty else { return nil }
        // Several lines of the field are one list, in order (RFC 9110 §5.3).
        let hops: [Substring]?
        if HTTPHeaders.equalsIgnoringCase(header, "Forwarded") {
            hops = Self.forwardedForValues(values.joined(separator: ","))
        } else {
            hops = values.joined(separator: ",").split(separator: ",").map { $0.trimmingBlanks() }.filter {
                !$0.isEmpty
            }
        }
        guard let hops, !hops.isEmpty else { return nil }
        var leftmost: IPAddress?
        for hop in hops.reversed() {
            guard let address = Self.address(ofNode: hop) else { return nil }
            if !trusts(address) { return address.description }
            leftmost = address
        }
        return leftmost?.description
    }

    /// The address of one hop as proxies write it: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`,
    /// `[2001:db8::1]`, `[2001:db8::1]:4711`; nil for anything else (`unknown`, `_hidden`, host names).
    static func address(ofNode node: Substring) -> IPAddress? {
        if node.first == "[" {
            guard let close = node.firstIndex(of: "]") else { return nil }
            let rest = node[node.index(after: close)...]
            guard rest.isEmpty || rest.first == ":" else { return nil }
            return IPAddress(node[node.index(after: node.startIndex)..<close])
        }
        let colons = node.utf8.count { $0 == UInt8(ascii: ":") }
        if colons == 1, let colon = node.firstIndex(of: ":") {
            return IPAddress(node[..<colon])  // IPv4 with a port
        }
        return IPAddress(node)
    }

    /// The `for=` values of a `Forwarded` field (RFC 7239 §4), one per element, unquoted, in order; nil when the
    /// field does not parse (then the whole header is ignored) or an element has no `for=`.
    static func forwardedForValues(_ field: String) -> [Substring]? {
        var result: [Substring] = []
        var scanner = ForwardedScanner(Substring(field))
        while true {
            var forValue: Substring?
            var sawPair = false
            while true {
                scanner.skipBlanks()
                guard let name = scanner.token() else {
                    // An empty element (`a, , b`) is allowed and skipped.
                    if scanner.atEnd || scanner.peek == "," { break }
                    return nil
                }
                guard scanner.take("=") else { return nil }
                let value: Substring
                if scanner.peek == "\"" {
                    guard let quoted = scanner.quotedString() else { return nil }
                    value = quoted
                } else {
                    guard let token = scanner.token() else { return nil }
                    value = token
                }
                sawPair = true
                if name.lowercased() == "for" {
                    guard forValue == nil else { return nil }  // a parameter may appear once per element
                    forValue = value
                }
                scanner.skipBlanks()
                if !scanner.take(";") { break }
            }
            scanner.skipBlanks()
            if sawPair {
                guard let forValue else { return nil }
                result.append(forValue)
            }
            if scanner.atEnd { return result }
            guard scanner.take(",") else { return nil }
        }
    }
}

/// An `http.trustedProxies` value that is not a list of addresses and CIDR blocks.
public struct TrustedProxiesError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Reads RFC 7230 tokens and quoted strings off a `Forwarded` field value.
private struct ForwardedScanner {
    var rest: Substring
    init(_ text: Substring) { rest = text }

    var atEnd: Bool { rest.isEmpty }
    var peek: Character? { rest.first }

    mutating func skipBlanks() {
        while let c = rest.first, c == " " || c == "\t" { rest.removeFirst() }
    }

    mutating func take(_ c: Character) -> Bool {
        guard rest.first == c else { return false }
        rest.removeFirst()
        return true
    }

    /// A token (RFC 9110 tchar+); nil when none starts here.
    mutating func token() -> Substring? {
        let end = rest.firstIndex { !Self.isTokenCharacter($0) } ?? rest.endIndex
        guard end > rest.startIndex else { return nil }
        defer { rest = rest[end...] }
        return rest[..<end]
    }

    /// A quoted string with `\` escapes removed; nil when it is not closed.
    mutating func quotedString() -> Substring? {
        guard take("\"") else { return nil }
        var value = ""
        while let c = rest.first {
            rest.removeFirst()
            switch c {
            case "\"": return Substring(value)
            case "\\":
                guard let escaped = rest.first else { return nil }
                rest.removeFirst()
                value.append(escaped)
            default: value.append(c)
            }
        }
        return nil
    }

    private static func isTokenCharacter(_ c: Character) -> Bool {
        guard let ascii = c.asciiValue else { return false }
        switch ascii {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default: return "!#$%&'*+-.^_`|~".utf8.contains(ascii)
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate func trimmingBlanks() -> Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
