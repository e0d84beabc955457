import KuraCore
import KuraModel
import Testing

@testable import KuraRules

/// `matches()` runs on RE2: linear time in the input whatever the pattern, RE2 syntax, whole-string matches.
@Suite struct RegexEngineTests {
    @Test("the engine is RE2: patterns only a backtracking engine accepts are invalid")
    func engineIsRE2() throws {
        #expect(CompiledRegex.engine == "RE2")
        // Backreferences and lookaround need backtracking; RE2 refuses them (ICU accepted them).
        for pattern in [#"(a)\\1"#, "a(?=b)", "(?<!x)y"] {
            let error = compileError("match /a/{id} { allow get: if id.matches('\(pattern)'); }")
            #expect(error?.message == "invalid regular expression", "\(pattern): \(String(describing: error))")
        }
        #expect(CompiledRegex(#"(a)\1"#) == nil)
    }

    @Test("a pathological pattern against 100 000 characters completes, in both outcomes")
    func pathologicalInput() throws {
        let regex = try #require(CompiledRegex("(a+)+$"))
        let long = String(repeating: "a", count: 100_000)
        #expect(!regex.matchesWhole(long + "b"))
        #expect(regex.matchesWhole(long))
        let nested = try #require(CompiledRegex("(x+x+)+y"))
        #expect(!nested.matchesWhole(String(repeating: "x", count: 100_000)))
    }

    @Test(
        "rules keep whole-string semantics and evaluate long inputs",
        arguments: [
            ("'abc'.matches('b')", false), ("'abc'.matches('a.c')", true), ("'abc'.matches('ab')", false),
            ("'abc'.matches('.*b.*')", true), ("'a\\nb'.matches('a.b')", false), ("'ab'.matches('a|ab')", true),
            ("'日本'.matches('..')", true), ("'x'.matches('[[:alpha:]]')", true),
        ])
    func wholeString(_ condition: String, _ expected: Bool) throws {
        #expect(try allows(condition) == expected, "\(condition)")
    }

    @Test("a pattern known only at evaluation time runs on RE2 too, and an invalid one is a rule error")
    func dynamicPattern() throws {
        let data: JSONObject = [
            "s": .string(String(repeating: "a", count: 100_000) + "b"), "p": .string("(a+)+$"),
            "bad": .string(#"(a)\1"#),
        ]
        #expect(try decide("resource.data.s.matches(resource.data.p)", data: data).isAllowed == false)
        let invalid = try decide("resource.data.s.matches(resource.data.bad)", data: data)
        #expect(!invalid.isAllowed)
    }
}

/// Integers and doubles compare exactly in rules, as in queries: no rounding of integers past 2^53.
@Suite struct ExactNumberTests {
    @Test(arguments: [
        ("9007199254740993 == 9007199254740992.0", false), ("9007199254740993 > 9007199254740992.0", true),
        ("9007199254740992.0 < 9007199254740993", true), ("9007199254740992 == 9007199254740992.0", true),
        ("9223372036854775807 < 9223372036854775808.0", true), ("1 == 1.0", true), ("2 >= 1.5", true),
        ("-1 < -0.5", true), ("9007199254740993 in [9007199254740992.0]", false),
    ])
    func exact(_ condition: String, _ expected: Bool) throws {
        #expect(try allows(condition) == expected, "\(condition)")
    }
}
