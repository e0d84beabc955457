/// Firestore's total order over JSON values:
/// null < false < true < numbers < strings < arrays < objects.
///
/// Integers and doubles are one type compared exactly (an `Int64` beyond 2^53 is never rounded to a double),
/// `-0.0 == 0.0`, and `1 == 1.0`. Strings compare by UTF-8 bytes, arrays element by element (a prefix sorts
/// first), objects by their members sorted by key (key, then value, then the next member).
/// `IndexKey` encodes values into bytes whose `memcmp` order is exactly this order.
public enum ValueOrdering {
    /// The rank of a value's type; values of different ranks compare by rank.
    public static func typeRank(_ value: JSONValue) -> Int {
        switch value {
        case .null: 0
        case .bool: 1
        case .int, .double: 2
        case .string: 3
        case .array: 4
        case .object: 5
        }
    }

    /// -1, 0 or 1 as `lhs` sorts before, with or after `rhs`.
    public static func compare(_ lhs: JSONValue, _ rhs: JSONValue) -> Int {
        let (lr, rr) = (typeRank(lhs), typeRank(rhs))
        if lr != rr { return lr < rr ? -1 : 1 }
        switch (lhs, rhs) {
        case (.null, .null): return 0
        case (.bool(let l), .bool(let r)): return l == r ? 0 : (l ? 1 : -1)
        case (.int(let l), .int(let r)): return l == r ? 0 : (l < r ? -1 : 1)
        case (.double(let l), .double(let r)): return l == r ? 0 : (l < r ? -1 : 1)
        case (.int(let l), .double(let r)): return compare(l, r)
        case (.double(let l), .int(let r)): return -compare(r, l)
        case (.string(let l), .string(let r)):
            if l.bytesEqual(r) { return 0 }
            return l.bytesPrecede(r) ? -1 : 1
        case (.array(let l), .array(let r)):
            for (a, b) in zip(l, r) {
                let order = compare(a, b)
                if order != 0 { return order }
            }
            return l.count == r.count ? 0 : (l.count < r.count ? -1 : 1)
        case (.object(let l), .object(let r)):
            let ls = sortedMembers(l)
            let rs = sortedMembers(r)
            for (a, b) in zip(ls, rs) {
                if !a.key.bytesEqual(b.key) { return a.key.bytesPrecede(b.key) ? -1 : 1 }
                let order = compare(a.value, b.value)
                if order != 0 { return order }
            }
            return ls.count == rs.count ? 0 : (ls.count < rs.count ? -1 : 1)
        default: return 0
        }
    }

    /// Exact comparison of an integer with a double, without rounding the integer.
    public static func compare(_ integer: Int64, _ double: Double) -> Int {
        if double.isNaN { return 1 }
        // 2^63 is exactly representable; every Int64 is below it.
        if double >= 9_223_372_036_854_775_808.0 { return -1 }
        if double < -9_223_372_036_854_775_808.0 { return 1 }
        let floor = double.rounded(.down)
        let whole = Int64(floor)  // in range: checked above
        if integer != whole { return integer < whole ? -1 : 1 }
        return double > floor ? -1 : 0
    }

    package static func sortedMembers(_ object: JSONObject) -> [(key: String, value: JSONValue)] {
        object.members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }
}
