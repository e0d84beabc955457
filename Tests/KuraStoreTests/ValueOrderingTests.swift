import KuraCore
import KuraModel
import Testing

@testable import KuraStore

@Suite struct ValueOrderingTests {
    /// Strictly increasing in Firestore's order.
    static let ascending: [JSONValue] = [
        nil, false, true, -1e300, .int(.min), -2.5, .int(-1), 0, 0.5, .int(1), 1.5,
        .int(9_007_199_254_740_992), .int(9_007_199_254_740_993), 9_007_199_254_740_994.0,
        .int(.max), 1e300, "", "A", "a", "a\u{0}", "ab", "é", "😀", [], [nil], [1], [1, 2], [2], ["a"],
        .object(JSONObject()), ["a": 1], ["a": 2], ["a": 2, "b": 0], ["b": 0],
    ]

    @Test func compareMatchesListOrder() {
        for (i, lhs) in Self.ascending.enumerated() {
            for (j, rhs) in Self.ascending.enumerated() {
                let expected = i == j ? 0 : (i < j ? -1 : 1)
                #expect(ValueOrdering.compare(lhs, rhs) == expected, "\(lhs) vs \(rhs)")
            }
        }
    }

    @Test func encodingOrderMatchesCompare() {
        for (i, lhs) in Self.ascending.enumerated() {
            for (j, rhs) in Self.ascending.enumerated() {
                let l = IndexKey.encode(lhs)
                let r = IndexKey.encode(rhs)
                let order = l == r ? 0 : (l.lexicographicallyPrecedes(r) ? -1 : 1)
                #expect(order == (i == j ? 0 : (i < j ? -1 : 1)), "\(lhs) vs \(rhs)")
            }
        }
    }

    @Test func integersAndDoublesAreOneType() {
        #expect(ValueOrdering.compare(.int(1), .double(1)) == 0)
        #expect(IndexKey.encode(.int(1)) == IndexKey.encode(.double(1)))
        #expect(IndexKey.encode(.double(-0.0)) == IndexKey.encode(.int(0)))
        #expect(ValueOrdering.compare(.int(9_007_199_254_740_993), .double(9_007_199_254_740_992)) == 1)
        #expect(ValueOrdering.compare(.int(.max), .double(9_223_372_036_854_775_808)) == -1)
        #expect(ValueOrdering.compare(.int(.min), .double(-9_223_372_036_854_775_808)) == 0)
        #expect(ValueOrdering.compare(.double(1e19), .int(.max)) == 1)
        #expect(ValueOrdering.compare(["b": 1, "a": 1], ["a": 1, "b": 1]) == 0)
    }

    @Test func randomIntDoublePairsAgree() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let base = Int64.random(in: -(1 << 62)...(1 << 62), using: &generator)
            let integer = base &+ Int64.random(in: -3...3, using: &generator)
            let double = Double(base) + Double(Int.random(in: -2...2)) * Double(base).ulp
            let direct = ValueOrdering.compare(.int(integer), .double(double))
            let l = IndexKey.encode(.int(integer))
            let r = IndexKey.encode(.double(double))
            let encoded = l == r ? 0 : (l.lexicographicallyPrecedes(r) ? -1 : 1)
            #expect(direct == encoded, "\(integer) vs \(double)")
        }
    }
}
