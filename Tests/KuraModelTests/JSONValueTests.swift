import KuraModel
import Testing

@Suite struct JSONValueTests {
    @Test func parsesScalarsAndStructures() throws {
        let value = try JSONValue.parse(#" {"a": [1, -2.5, true, false, null, "x"], "b": {}} "#)
        #expect(value == .object(["a": [1, -2.5, true, false, nil, "x"], "b": .object(JSONObject())]))
    }

    @Test func keepsMemberOrder() throws {
        let value = try JSONValue.parse(#"{"z":1,"a":2,"m":3}"#)
        #expect(value.objectValue?.keys == ["z", "a", "m"])
        #expect(value.jsonString == #"{"z":1,"a":2,"m":3}"#)
    }

    @Test(arguments: [Int64.max, Int64.min, 0, -1, 9_007_199_254_740_993, -9_007_199_254_740_993])
    func int64RoundTripsExactly(_ integer: Int64) throws {
        let text = String(integer)
        let parsed = try JSONValue.parse(text)
        #expect(parsed == .int(integer))
        #expect(parsed.jsonString == text)
    }

    @Test(
        "integers beyond Int64 are refused, never rounded to a double",
        arguments: [
            "9223372036854775808", "-9223372036854775809", "[1, 100000000000000000000]",
            #"{"n": -1e2, "m": 18446744073709551616}"#,
        ])
    func integersBeyondInt64AreRefused(_ text: String) throws {
        let error = #expect(throws: ValidationError.self) { try JSONValue.parse(text) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("64-bit") == true, "\(String(describing: error))")
        // Written with a fraction or an exponent, a big number is a double on purpose.
        #expect(try JSONValue.parse("9223372036854775808.0") == .double(9_223_372_036_854_775_808.0))
        #expect(try JSONValue.parse("1e19") == .double(1e19))
    }

    @Test(arguments: ["1.0", "0.1", "-2.5e-08", "1e+300", "5e-324", "1.7976931348623157e+308", "123456.789"])
    func doublesRoundTrip(_ text: String) throws {
        let parsed = try JSONValue.parse(text)
        guard case .double(let double) = parsed else {
            Issue.record("\(text) did not parse as a double")
            return
        }
        #expect(try JSONValue.parse(parsed.jsonString) == .double(double))
    }

    @Test func doublesStayDoubles() throws {
        #expect(try JSONValue.parse("1.0") == .double(1))
        #expect(JSONValue.double(1).jsonString == "1.0")
        #expect(try JSONValue.parse("1e2") == .double(100))
        #expect(try JSONValue.parse("-0") == .int(0))
    }

    @Test func unicodeEscapes() throws {
        #expect(try JSONValue.parse(#""\u00e9\n\t\"\\\/\b\f\r""#) == .string("é\n\t\"\\/\u{8}\u{c}\r"))
        #expect(try JSONValue.parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try JSONValue.parse(#""\u0000""#) == .string("\u{0}"))
        #expect(try JSONValue.parse("\"日本😀\"") == .string("日本😀"))
    }

    @Test func serializerEscapesAndRoundTrips() throws {
        let value: JSONValue = ["s": "quote\" back\\ nl\n ctl\u{1} 😀", "n": [1, 2.5, nil, true]]
        #expect(try JSONValue.parse(value.jsonBytes) == value)
    }

    @Test func depthLimit() throws {
        let ok = String(repeating: "[", count: 20) + String(repeating: "]", count: 20)
        #expect(try JSONValue.parse(ok, maxDepth: 20).depth == 20)
        let deep = String(repeating: "[", count: 21) + String(repeating: "]", count: 21)
        #expect(throws: ValidationError.self) { try JSONValue.parse(deep, maxDepth: 20) }
    }

    static let rejected: [String] = [
        "", " ", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "-", "+1", "1e", "1e+", "NaN", "Infinity", "tru",
        "nul", "'a'", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"",
        "\"a\u{1}b\"", "{a:1}", "{\"a\" 1}", "[1 2]", "1 2", "{\"a\":1,\"a\":2}", "1e400", "[", "{", "//c\n1",
        "\"\\u00zz\"",
    ]

    @Test(arguments: rejected)
    func rejectsInvalidJSON(_ text: String) {
        #expect(throws: ValidationError.self) { try JSONValue.parse(text) }
    }

    @Test func rejectsInvalidUTF8WithOffset() {
        do {
            _ = try JSONValue.parse([0x5B, 0x22, 0xFF, 0x22, 0x5D])
            Issue.record("accepted invalid UTF-8")
        } catch let error as ValidationError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("byte 1"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func errorNamesByteOffset() {
        do {
            _ = try JSONValue.parse("[1, 2, x]")
            Issue.record("accepted")
        } catch let error as ValidationError {
            #expect(error.message.contains("byte 7"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func largeObjectsUseKeyIndex() throws {
        var object = JSONObject()
        for i in 0..<100 { object["k\(i)"] = .int(Int64(i)) }
        object["k5"] = nil
        #expect(object["k99"] == .int(99))
        #expect(object["k5"] == nil)
        #expect(object.count == 99)
        #expect(object.keys.first == "k0")
    }
}
