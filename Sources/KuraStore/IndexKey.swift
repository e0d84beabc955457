import KuraCore
import KuraModel

/// An order-preserving byte encoding of JSON values: `memcmp` on two encodings orders them exactly as
/// `ValueOrdering.compare` does, across types. Index rows store these bytes so that SQLite's plain BLOB
/// comparison sorts and range-scans values the way Firestore orders them.
///
/// Layout (one type tag byte, then the payload):
/// - null `0x05`; false `0x10`; true `0x11`
/// - number `0x20` + 8 bytes + 2 bytes: the value rounded *down* to a double, as sortable big-endian bits
///   (sign bit flipped for positives, all bits flipped for negatives), then the exact remainder `i - floor(i)`
///   of an integer above that double (0 for doubles; < 2048 since doubles ≥ 2^53 are at most 2048 apart).
///   So `1 == 1.0`, and `2^53 + 1` sorts strictly between the doubles `2^53` and `2^53 + 2`.
/// - string `0x30` + UTF-8 with `0x00` escaped as `0x00 0xFF`, terminated by `0x00 0x01`
/// - array `0x40` + elements + `0x00`; object `0x50` + (key as string, value) sorted by key + `0x00`
///   (`0x00` sorts below every tag, so a prefix sorts first).
public enum IndexKey {
    static let nullTag: UInt8 = 0x05
    static let falseTag: UInt8 = 0x10
    static let trueTag: UInt8 = 0x11
    static let numberTag: UInt8 = 0x20
    static let stringTag: UInt8 = 0x30
    static let arrayTag: UInt8 = 0x40
    static let objectTag: UInt8 = 0x50
    static let endTag: UInt8 = 0x00

    /// The encoding of `value`.
    public static func encode(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16)
        append(value, to: &out)
        return out
    }

    /// Smallest encoding of values of the same type as `value` (inclusive lower bound of its type's range).
    package static func typeLowerBound(_ value: JSONValue) -> [UInt8] { [tagRange(value).lowerBound] }
    /// Exclusive upper bound of the encodings of `value`'s type.
    package static func typeUpperBound(_ value: JSONValue) -> [UInt8] { [tagRange(value).upperBound] }

    private static func tagRange(_ value: JSONValue) -> Range<UInt8> {
        switch value {
        case .null: nullTag..<(nullTag + 1)
        case .bool: falseTag..<(trueTag + 1)
        case .int, .double: numberTag..<(numberTag + 1)
        case .string: stringTag..<(stringTag + 1)
        case .array: arrayTag..<(arrayTag + 1)
        case .object: objectTag..<(objectTag + 1)
        }
    }

    static func append(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(nullTag)
        case .bool(let flag): out.append(flag ? trueTag : falseTag)
        case .int(let integer):
            let floor = floorDouble(integer)
            out.append(numberTag)
            appendSortable(floor, to: &out)
            // floor ≤ integer < 2^63 and floor ≥ -2^63, so Int64(floor) is exact and the gap is < 2048.
            let remainder = UInt16(integer - Int64(floor))
            out.append(UInt8(remainder >> 8))
            out.append(UInt8(remainder & 0xFF))
        case .double(let double):
            out.append(numberTag)
            appendSortable(double == 0 ? 0 : double, to: &out)
            out.append(0)
            out.append(0)
        case .string(let string): appendString(string, to: &out)
        case .array(let elements):
            out.append(arrayTag)
            for element in elements { append(element, to: &out) }
            out.append(endTag)
        case .object(let object):
            out.append(objectTag)
            for member in ValueOrdering.sortedMembers(object) {
                appendString(member.key, to: &out)
                append(member.value, to: &out)
            }
            out.append(endTag)
        }
    }

    /// Order-preserving key of a collection path: its segments as `IndexKey` strings, so byte order is segment-wise
    /// order (the `collections.pkey` column).
    package static func pathKey(_ segments: [String]) -> [UInt8] {
        var out: [UInt8] = []
        for segment in segments { appendString(segment, to: &out) }
        return out
    }

    package static func appendString(_ string: String, to out: inout [UInt8]) {
        out.append(stringTag)
        for byte in string.utf8 {
            out.append(byte)
            if byte == 0 { out.append(0xFF) }
        }
        out.append(0x00)
        out.append(0x01)
    }

    /// The largest double ≤ `integer`.
    static func floorDouble(_ integer: Int64) -> Double {
        var double = Double(integer)  // rounds to nearest; may land above
        if double >= 9_223_372_036_854_775_808.0 || Int64(double) > integer { double = double.nextDown }
        return double
    }

    private static func appendSortable(_ double: Double, to out: inout [UInt8]) {
        var bits = double.bitPattern
        bits = (bits & (1 << 63)) != 0 ? ~bits : bits | (1 << 63)
        for shift in stride(from: 56, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
    }
}
