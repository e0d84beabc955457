#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 or IPv6 address as its bytes (4 or 16). An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, what a
/// dual-stack listener reports for an IPv4 peer) is kept as the IPv4 address it maps.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6, network order.
    public let bytes: [UInt8]

    /// Parses the textual forms `inet_pton` accepts (`192.0.2.1`, `2001:db8::1`); nil for anything else: brackets,
    /// ports, zone ids, host names, octal or shortened IPv4.
    public init?(_ text: some StringProtocol) {
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        let string = String(text)
        if string.utf8.contains(UInt8(ascii: ":")) {
            var address = in6_addr()
            guard inet_pton(AF_INET6, string, &address) == 1 else { return nil }
            let bytes = withUnsafeBytes(of: &address) { Array($0) }
            let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
            self.bytes = mapped ? Array(bytes[12..<16]) : bytes
        } else {
            var address = in_addr()
            guard inet_pton(AF_INET, string, &address) == 1 else { return nil }
            bytes = withUnsafeBytes(of: &address) { Array($0) }
        }
    }

    /// The canonical text: dotted quad, or RFC 5952's lower-case shortened IPv6.
    public var description: String {
        var text = [CChar](repeating: 0, count: 64)
        var copy = bytes
        if bytes.count == 4 {
            _ = inet_ntop(AF_INET, &copy, &text, 64)
        } else {
            _ = inet_ntop(AF_INET6, &copy, &text, 64)
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A block of addresses in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`); a bare address is a block of one.
public struct IPAddressRange: Sendable, Hashable, CustomStringConvertible {
    public let network: IPAddress
    public let prefixLength: Int

    /// Parses `ADDRESS/LENGTH` or `ADDRESS`; nil when either part is not valid. Bits past the prefix are ignored
    /// (`10.1.2.3/8` is `10.0.0.0/8`).
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        let bits = address.bytes.count * 8
        if parts.count == 2 {
            guard parts[1].utf8.count <= 3, parts[1].allSatisfy(\.isASCII), let length = Int(parts[1]),
                (0...bits).contains(length)
            else { return nil }
            prefixLength = length
        } else {
            prefixLength = bits
        }
        network = address
    }

    /// Whether `address` lies in this block (an IPv4 block never holds an IPv6 address, nor the reverse).
    public func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == network.bytes.count else { return false }
        var remaining = prefixLength
        for (a, b) in zip(address.bytes, network.bytes) {
            guard remaining > 0 else { return true }
            let mask: UInt8 = remaining >= 8 ? 0xff : ~(0xff >> UInt8(remaining))
            guard a & mask == b & mask else { return false }
            remaining -= 8
        }
        return true
    }

    public var description: String { "\(network)/\(prefixLength)" }
}
