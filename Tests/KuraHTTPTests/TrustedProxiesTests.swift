import KuraHTTP
import Testing

/// The client address behind trusted proxies (`http.trustedProxies`): which hop of `X-Forwarded-For` or
/// `Forwarded` is the client, and that nothing a client sends is read unless its TCP peer is a trusted proxy.
@Suite struct TrustedProxiesTests {
    private static let proxies = TrustedProxies(
        ranges: try! TrustedProxies.parseRanges("127.0.0.1/32, 10.0.0.0/8 2001:db8:aaaa::/48"))

    private func client(
        _ fields: [(String, String)], peer: String = "127.0.0.1", proxies: TrustedProxies = Self.proxies
    ) -> String {
        proxies.clientAddress(peer: peer, headers: HTTPHeaders(fields))
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let fields: [(String, String)]
        let expected: String
        var testDescription: String { name }
    }

    static let xForwardedFor: [Case] = [
        Case(name: "no header: the peer", fields: [], expected: "127.0.0.1"),
        Case(name: "one hop", fields: [("X-Forwarded-For", "198.51.100.7")], expected: "198.51.100.7"),
        Case(
            name: "a forged hop on the left is passed over",
            fields: [("X-Forwarded-For", "203.0.113.9, 198.51.100.7")], expected: "198.51.100.7"),
        Case(
            name: "trusted hops on the right are walked past",
            fields: [("X-Forwarded-For", "203.0.113.9, 198.51.100.7, 10.1.2.3,10.0.0.9")], expected: "198.51.100.7"),
        Case(
            name: "every hop trusted: the leftmost", fields: [("X-Forwarded-For", "10.0.0.5, 127.0.0.1")],
            expected: "10.0.0.5"),
        Case(name: "IPv6", fields: [("X-Forwarded-For", "2001:DB8:0:0::1")], expected: "2001:db8::1"),
        Case(name: "IPv6 in brackets", fields: [("X-Forwarded-For", "[2001:db8::1]")], expected: "2001:db8::1"),
        Case(
            name: "IPv6 in brackets with a port", fields: [("X-Forwarded-For", "[2001:db8::1]:4711")],
            expected: "2001:db8::1"),
        Case(name: "IPv4 with a port", fields: [("X-Forwarded-For", "198.51.100.7:4711")], expected: "198.51.100.7"),
        Case(
            name: "IPv4-mapped IPv6 is the IPv4 address", fields: [("X-Forwarded-For", "::ffff:198.51.100.7")],
            expected: "198.51.100.7"),
        Case(
            name: "a trusted IPv6 proxy is walked past",
            fields: [("X-Forwarded-For", "198.51.100.7, 2001:db8:aaaa::5")], expected: "198.51.100.7"),
        Case(
            name: "several lines are one list, in order",
            fields: [("X-Forwarded-For", "203.0.113.9"), ("x-forwarded-for", "198.51.100.7, 10.0.0.2")],
            expected: "198.51.100.7"),
        Case(
            name: "empty entries are skipped", fields: [("X-Forwarded-For", " , 198.51.100.7,,")],
            expected: "198.51.100.7"),
        Case(
            name: "garbage on the left, behind the client, changes nothing",
            fields: [("X-Forwarded-For", "<script>, unknown, 198.51.100.7")], expected: "198.51.100.7"),
        Case(
            name: "garbage where the client should be: the peer", fields: [("X-Forwarded-For", "not-an-ip")],
            expected: "127.0.0.1"),
        Case(
            name: "garbage past a trusted hop: the peer", fields: [("X-Forwarded-For", "198.51.100.7 x, 10.0.0.2")],
            expected: "127.0.0.1"),
        Case(name: "a host name: the peer", fields: [("X-Forwarded-For", "example.com")], expected: "127.0.0.1"),
        Case(name: "octal IPv4: the peer", fields: [("X-Forwarded-For", "0177.0.0.1")], expected: "127.0.0.1"),
        Case(name: "a zone id: the peer", fields: [("X-Forwarded-For", "fe80::1%eth0")], expected: "127.0.0.1"),
        Case(
            name: "an unclosed bracket: the peer", fields: [("X-Forwarded-For", "[2001:db8::1")], expected: "127.0.0.1"),
        Case(
            name: "text after the bracket: the peer", fields: [("X-Forwarded-For", "[2001:db8::1]x")],
            expected: "127.0.0.1"),
        Case(name: "only commas: the peer", fields: [("X-Forwarded-For", ",,,")], expected: "127.0.0.1"),
        Case(
            name: "a huge list is read without trouble",
            fields: [("X-Forwarded-For", Array(repeating: "10.0.0.1", count: 2000).joined(separator: ","))],
            expected: "10.0.0.1"),
        Case(
            name: "Forwarded is not read when X-Forwarded-For is the header",
            fields: [("Forwarded", "for=203.0.113.9")], expected: "127.0.0.1"),
    ]

    @Test("X-Forwarded-For from a trusted proxy", arguments: xForwardedFor)
    func forwardedFor(_ example: Case) {
        #expect(client(example.fields) == example.expected)
    }

    static let forwarded: [Case] = [
        Case(name: "for=", fields: [("Forwarded", "for=198.51.100.7")], expected: "198.51.100.7"),
        Case(
            name: "other parameters and case", fields: [("Forwarded", "Proto=https;FOR=198.51.100.7;by=10.0.0.1")],
            expected: "198.51.100.7"),
        Case(
            name: "quoted IPv6 with a port", fields: [("Forwarded", #"for="[2001:db8:cafe::17]:4711""#)],
            expected: "2001:db8:cafe::17"),
        Case(
            name: "quoted IPv4 with a port", fields: [("Forwarded", #"for="198.51.100.7:47011""#)],
            expected: "198.51.100.7"),
        Case(
            name: "a chain: the last untrusted hop",
            fields: [("Forwarded", #"for=203.0.113.9, for=198.51.100.7;proto=http, for="10.0.0.3""#)],
            expected: "198.51.100.7"),
        Case(
            name: "several lines are one list",
            fields: [("Forwarded", "for=203.0.113.9"), ("Forwarded", "for=198.51.100.7")], expected: "198.51.100.7"),
        Case(
            name: "an obfuscated identifier on the left changes nothing",
            fields: [("Forwarded", "for=_hidden, for=198.51.100.7")], expected: "198.51.100.7"),
        Case(name: "an obfuscated client: the peer", fields: [("Forwarded", "for=_hidden")], expected: "127.0.0.1"),
        Case(name: "for=unknown: the peer", fields: [("Forwarded", "for=unknown")], expected: "127.0.0.1"),
        Case(
            name: "unquoted IPv6 is not valid: the peer", fields: [("Forwarded", "for=[2001:db8::1]")],
            expected: "127.0.0.1"),
        Case(
            name: "an unclosed quote: the peer", fields: [("Forwarded", #"for="198.51.100.7"#)], expected: "127.0.0.1"),
        Case(
            name: "an element without for=: the peer", fields: [("Forwarded", "for=203.0.113.9, proto=https")],
            expected: "127.0.0.1"),
        Case(
            name: "for= twice in an element: the peer", fields: [("Forwarded", "for=203.0.113.9;for=198.51.100.7")],
            expected: "127.0.0.1"),
        Case(name: "garbage: the peer", fields: [("Forwarded", "==;;,\"")], expected: "127.0.0.1"),
        Case(name: "empty: the peer", fields: [("Forwarded", "")], expected: "127.0.0.1"),
        Case(
            name: "X-Forwarded-For is not read when Forwarded is the header",
            fields: [("X-Forwarded-For", "203.0.113.9")], expected: "127.0.0.1"),
    ]

    @Test("Forwarded (RFC 7239) from a trusted proxy", arguments: forwarded)
    func forwardedHeader(_ example: Case) {
        var proxies = Self.proxies
        proxies.header = "Forwarded"
        #expect(client(example.fields, proxies: proxies) == example.expected)
    }

    @Test("from a peer that is not a trusted proxy the headers change nothing")
    func untrustedPeer() {
        let forged: [(String, String)] = [("X-Forwarded-For", "198.51.100.7"), ("Forwarded", "for=198.51.100.8")]
        #expect(client(forged, peer: "203.0.113.50") == "203.0.113.50")
        #expect(client(forged, peer: "2001:db8:bbbb::1") == "2001:db8:bbbb::1")
        var forwarded = Self.proxies
        forwarded.header = "Forwarded"
        #expect(client(forged, peer: "203.0.113.50", proxies: forwarded) == "203.0.113.50")
        // No trusted proxies (the default): nobody's headers are read, loopback's included.
        #expect(client(forged, proxies: TrustedProxies()) == "127.0.0.1")
        // A peer address that does not parse is trusted by no block.
        #expect(client(forged, peer: "") == "")
    }

    @Test("a dual-stack listener's IPv4-mapped peer matches an IPv4 block")
    func mappedPeer() {
        #expect(client([("X-Forwarded-For", "198.51.100.7")], peer: "::ffff:127.0.0.1") == "198.51.100.7")
        #expect(Self.proxies.trusts("::ffff:10.9.8.7"))
        #expect(!Self.proxies.trusts("::ffff:11.9.8.7"))
    }

    @Test("CIDR blocks")
    func blocks() throws {
        let ranges = try TrustedProxies.parseRanges("192.168.0.0/16,172.16.0.0/12 fd00::/8 203.0.113.7 ::1 0.0.0.0/0")
        #expect(ranges.count == 6)
        let proxies = TrustedProxies(ranges: Array(ranges.prefix(5)))
        #expect(proxies.trusts("192.168.255.1"))
        #expect(!proxies.trusts("192.169.0.1"))
        #expect(proxies.trusts("172.31.0.1"))
        #expect(!proxies.trusts("172.32.0.1"))
        #expect(proxies.trusts("fdff::1"))
        #expect(!proxies.trusts("fe00::1"))
        #expect(proxies.trusts("203.0.113.7"))
        #expect(!proxies.trusts("203.0.113.8"))
        #expect(proxies.trusts("::1"))
        #expect(TrustedProxies(ranges: [ranges[5]]).trusts("8.8.8.8"))
        #expect(!TrustedProxies(ranges: [ranges[5]]).trusts("::1"))
        #expect(try TrustedProxies.parseRanges("").isEmpty)
        #expect(try TrustedProxies.parseRanges(" , ").isEmpty)
        for bad in ["10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/-1", "10.0.0/8", "localhost", "10.0.0.0/8/8", "/8"]
        {
            #expect(throws: TrustedProxiesError.self, "\(bad)") { try TrustedProxies.parseRanges(bad) }
        }
    }
}
