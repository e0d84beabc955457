import KuraCore
import KuraModel
import Testing

/// The exact bytes KuraCore writes for JSON (documents and error bodies are served from them), and parsing edge
/// cases that JSONValueTests (in KuraStoreTests) does not cover.
@Suite struct JSONSerializationTests {
    @Test(
        "scalars are written compactly and exactly",
        arguments: [
            (JSONValue.null, "null"), (true, "true"), (false, "false"), (0, "0"), (-1, "-1"),
            (.int(.max), "9223372036854775807"), (.int(.min), "-9223372036854775808"), (1.0, "1.0"), (-0.5, "-0.5"),
            (1e-05, "1e-05"), (1.5e300, "1.5e+300"), (.double(.infinity), "null"), (.double(.nan), "null"),
            ("", #""""#),
        ] as [(JSONValue, String)])
    func scalars(_ value: JSONValue, _ text: String) {
        #expect(value.jsonString == text)
    }

    @Test("objects keep member order and containers have no whitespace")
    func containers() {
        let value: JSONValue = ["z": 1, "a": [true, nil, [:], []], "m": ["k": "v"]]
        #expect(value.jsonString == #"{"z":1,"a":[true,null,{},[]],"m":{"k":"v"}}"#)
    }

    @Test("every control character is escaped; quote and backslash too; the rest passes through as UTF-8")
    func stringEscapes() throws {
        var out: [UInt8] = []
        appendJSONString("a\"b\\c\nd\re\tf\u{0}g\u{1f}h/é😀\u{7f}", to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #""a\"b\\c\nd\re\tf\u0000g\u001fh/é😀"# + "\u{7f}\"")
        for scalar in 0..<0x20 {
            let text = String(UnicodeScalar(UInt8(scalar)))
            var bytes: [UInt8] = []
            appendJSONString(text, to: &bytes)
            #expect(!bytes.contains { $0 < 0x20 }, "U+\(scalar) written raw")
            #expect(try JSONValue.parse(bytes) == .string(text))
        }
    }

    @Test("an error body is {\"error\":{\"code\",\"message\"}} with the message escaped")
    func errorBody() throws {
        let error = APIError.badRequest("bad \"x\"\n")
        let body = String(decoding: error.jsonBody, as: UTF8.self)
        #expect(body == #"{"error":{"code":"INVALID_ARGUMENT","message":"bad \"x\"\n"}}"#)
        #expect(try JSONValue.parse(error.jsonBody).objectValue?["error"]?.objectValue?["code"] == "INVALID_ARGUMENT")
    }

    @Test(
        "numbers: the integer or double form decides the type",
        arguments: [
            ("0", JSONValue.int(0)), ("-0", .int(0)), ("1E2", .double(100)), ("1e-2", .double(0.01)),
            ("-0.0", .double(-0.0)), ("10.50", .double(10.5)), ("[ 1 , 2 ]", [1, 2]), ("\t{\r\n}\n", [:]),
        ] as [(String, JSONValue)])
    func numbersAndWhitespace(_ text: String, _ expected: JSONValue) throws {
        #expect(try JSONValue.parse(text) == expected)
    }

    @Test("a parse error is 400 INVALID_ARGUMENT")
    func parseErrorShape() {
        #expect {
            try JSONValue.parse("{\"a\":}")
        } throws: { error in
            guard let error = APIError(answering: error) else { return false }
            return error.status == 400 && error.code == .invalidArgument && error.message.contains("byte 5")
        }
    }

    @Test("HTML escaping covers the five characters that matter in text and attribute values")
    func htmlEscaping() {
        #expect(
            "<a href=\"x\">Tom & 'Jerry'</a>".htmlEscaped
                == "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;")
        #expect("plain é 😀".htmlEscaped == "plain é 😀")
    }
}
