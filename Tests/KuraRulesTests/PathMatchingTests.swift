import Testing

@testable import KuraRules

@Suite struct PathMatchingTests {
    private func check(_ source: String, _ cases: [([String], Bool)]) throws {
        let rules = try RuleSet.compile(source: source, fileName: "f")
        for (path, expected) in cases {
            let decision = rules.evaluate(method: .get, path: path, context: RuleContext(auth: nil))
            #expect(decision.isAllowed == expected, "\(path): \(decision)")
        }
    }

    @Test func singleVariable() throws {
        try check(
            "match /users/{uid} { allow get: if uid == 'a'; }",
            [(["users", "a"], true), (["users", "b"], false), (["users"], false), (["users", "a", "x", "y"], false)])
    }

    @Test func restWildcardZeroAndManySegments() throws {
        try check(
            "match /users/{uid}/{rest=**} { allow get: if uid == 'a' && (rest == '' || rest == 'x/y/z'); }",
            [(["users", "a"], true), (["users", "a", "x", "y", "z"], true), (["users", "a", "x"], false)])
        try check("match /{all=**} { allow get: if all.size() >= 0; }", [([], true), (["a", "b", "c"], true)])
    }

    @Test func nestedMatchesContinueTheOuterPath() throws {
        try check(
            "match /a/{x} { match /b/{y} { allow get: if x == '1' && y == '2'; } }",
            [(["a", "1", "b", "2"], true), (["a", "1"], false), (["a", "1", "b", "3"], false), (["b", "2"], false)])
    }

    @Test func innerVariableShadowsOuter() throws {
        try check(
            "match /a/{x} { match /b/{x} { allow get: if x == 'inner'; } }",
            [(["a", "outer", "b", "inner"], true), (["a", "inner", "b", "outer"], false)])
    }

    @Test func firestoreDatabaseWrapperIsTheRoot() throws {
        try check(
            "match /databases/{database}/documents { match /q/{id} { allow get: if database == '(default)'; } }",
            [(["q", "1"], true), (["databases", "x", "documents", "q", "1"], false)])
    }

    @Test func restBindsForNestedMatchIsRejected() {
        #expect(compileError("match /a/{r=**} { match /b { } }")?.message.contains("cannot contain nested") == true)
    }
}
