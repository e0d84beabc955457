#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Kura's identity for every user-supplied name and string (IDs, paths, field names, emails, string values): its
/// UTF-8 bytes, as in Firestore and as SQLite compares them. No normalization: `"が"` (U+304C) and `"か\u{3099}"`
/// are two different names everywhere (docs/api.md, "Identity").
///
/// Swift's own `String` `==`, `hash(into:)` and `<` use canonical equivalence instead, so a `String` must never be
/// a dictionary key, set element or comparison operand for such a name: use `ByteKey`, or these methods.
extension String {
    /// `true` when both strings have the same UTF-8 bytes (`==` would also accept canonically equivalent ones).
    @inlinable
    public func bytesEqual(_ other: String) -> Bool {
        let (lhs, rhs) = (utf8, other.utf8)
        guard lhs.count == rhs.count else { return false }
        // Native strings are contiguous UTF-8: `memcmp` the buffers (as `String ==` does for ASCII), which is
        // several times faster than comparing them element by element.
        if let equal = lhs.withContiguousStorageIfAvailable({ l in
            rhs.withContiguousStorageIfAvailable { r in
                l.isEmpty || memcmp(l.baseAddress!, r.baseAddress!, l.count) == 0
            }
        }), let equal {
            return equal
        }
        return lhs.elementsEqual(rhs)
    }

    /// Feeds the UTF-8 bytes into `hasher`, followed by a terminator byte that UTF-8 never contains (so the
    /// segments `["ab", "c"]` and `["a", "bc"]` feed different sequences).
    @inlinable
    public func hashBytes(into hasher: inout Hasher) {
        let hashed: Void? = utf8.withContiguousStorageIfAvailable { bytes in
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
        if hashed == nil {
            for byte in utf8 { hasher.combine(byte) }
        }
        hasher.combine(UInt8(0xFF))
    }

    /// Byte-wise order (the order SQLite's `BINARY` collation and Firestore use), not `String`'s `<`.
    @inlinable
    public func bytesPrecede(_ other: String) -> Bool {
        utf8.lexicographicallyPrecedes(other.utf8)
    }
}

/// A `String` as a dictionary key or set element with byte identity: equality, hashing and order are those of its
/// UTF-8 bytes. Use it for every key that holds a user-supplied name.
public struct ByteKey: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name.
    public let string: String

    /// A key for `string`.
    @inlinable
    public init(_ string: String) { self.string = string }

    public init(stringLiteral value: String) { self.string = value }

    public var description: String { string }

    @inlinable
    public static func == (lhs: ByteKey, rhs: ByteKey) -> Bool { lhs.string.bytesEqual(rhs.string) }

    @inlinable
    public func hash(into hasher: inout Hasher) { string.hashBytes(into: &hasher) }

    @inlinable
    public static func < (lhs: ByteKey, rhs: ByteKey) -> Bool { lhs.string.bytesPrecede(rhs.string) }
}

extension Array where Element == String {
    /// `true` when both arrays hold the same strings by bytes (`String.bytesEqual`).
    @inlinable
    public func bytesEqual(_ other: [String]) -> Bool {
        guard count == other.count else { return false }
        for index in indices where !self[index].bytesEqual(other[index]) { return false }
        return true
    }

    /// Hashes the count and each string's bytes (`String.hashBytes`).
    @inlinable
    public func hashBytes(into hasher: inout Hasher) {
        hasher.combine(count)
        for string in self { string.hashBytes(into: &hasher) }
    }
}
