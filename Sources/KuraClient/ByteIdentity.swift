import Foundation

/// The server's identity for names and strings (docs/api.md, "Identity"): the UTF-8 bytes, never `String`'s
/// canonical equivalence (`"が"` and `"か\u{3099}"` are `==` in Swift, but two documents on the server). The SDK
/// compares paths, IDs and strings with these, so its local cache and views agree with the server. (KuraCore has
/// the same helpers; the SDK depends on Foundation and the SQLite shim only.)
extension String {
    /// `true` when both strings have the same UTF-8 bytes.
    func bytesEqual(_ other: String) -> Bool {
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

    /// Feeds the UTF-8 bytes and a terminator that UTF-8 never contains into `hasher`.
    func hashBytes(into hasher: inout Hasher) {
        let hashed: Void? = utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            for byte in utf8 { hasher.combine(byte) }
        }
        hasher.combine(UInt8(0xFF))
    }

    /// Byte-wise order, as the server sorts.
    func bytesPrecede(_ other: String) -> Bool { utf8.lexicographicallyPrecedes(other.utf8) }
}

extension Array where Element == String {
    /// Same strings by bytes.
    func bytesEqual(_ other: [String]) -> Bool {
        count == other.count && zip(self, other).allSatisfy { $0.bytesEqual($1) }
    }

    /// Hashes the count and each string's bytes.
    func hashBytes(into hasher: inout Hasher) {
        hasher.combine(count)
        for string in self { string.hashBytes(into: &hasher) }
    }
}

/// A `String` key (a document path) with byte identity, for the SDK's dictionaries and sets.
struct ByteKey: Hashable, Sendable {
    let string: String
    init(_ string: String) { self.string = string }
    static func == (lhs: ByteKey, rhs: ByteKey) -> Bool { lhs.string.bytesEqual(rhs.string) }
    func hash(into hasher: inout Hasher) { string.hashBytes(into: &hasher) }
}
