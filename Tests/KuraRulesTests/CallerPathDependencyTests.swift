import KuraCore
import KuraModel
import Testing

@testable import KuraRules

/// `RuleSet.decisionDependsOnlyOnCallerAndPath(method:path:)`: the static analysis that lets the server remember
/// a user's allowed read of a path until the rules change.
@Suite struct CallerPathDependencyTests {
    private func onlyCallerAndPath(_ source: String, _ method: RuleMethod, _ path: [String]) throws -> Bool {
        try RuleSet.compile(source: "rules_version = '1';\n" + source, fileName: "t.rules")
            .decisionDependsOnlyOnCallerAndPath(method: method, path: path)
    }

    @Test(
        "decisions made from the caller, the path and constants",
        arguments: [
            ("match /users/{uid}/{rest=**} { allow read: if request.auth.uid == uid; }", ["users", "u1", "n", "x"]),
            ("match /quizzes/{id} { allow read: if true; }", ["quizzes", "q"]),
            (
                "match /a/{id} { allow get: if request.auth.token.admin == true && request.method == 'get'; }",
                ["a", "x"]
            ),
            ("function f(x) { return x == 'k'; } match /a/{k} { allow get: if f(k); }", ["a", "k"]),
            // Reads of the document under other methods, or in blocks that do not match, do not count.
            ("match /a/{id} { allow update: if resource.data.x == 1; allow get: if true; }", ["a", "x"]),
            (
                "match /b/{id} { allow get: if resource.data.x == 1; } match /a/{id} { allow get: if true; }",
                ["a", "x"]
            ),
            // No rule matches: a denial, the same every time.
            ("match /b/{id} { allow get: if exists(/c/d); }", ["a", "x"]),
        ])
    func constant(source: String, path: [String]) throws {
        #expect(try onlyCallerAndPath(source, .get, path))
    }

    @Test(
        "decisions that may change between two reads of the same caller",
        arguments: [
            "match /a/{id} { allow get: if resource.data.public == true; }",
            "match /a/{id} { allow get: if request.time.toMillis() < 1900000000000; }",
            "match /a/{id} { allow get: if exists(/b/$(request.auth.uid)); }",
            "match /a/{id} { allow get: if get(/b/c).data.open == true; }",
            "match /a/{id} { allow get: if request.resource == null; }",
            "match /a/{id} { allow get: if request.path != null; }",
            "match /a/{id} { allow get: if request != null; }",
            // Through functions, nested matches and `read`.
            "function open() { return resource.data.open; } match /a/{id} { allow get: if open(); }",
            "function t() { return request.time; } function u() { return t() != null; } match /a/{id} { allow read: if u(); }",
            "match /a/{id} { allow get: if true; allow get: if resource == null; }",
            "match /{document=**} { allow get: if exists(/x/y); }",
        ])
    func varying(source: String) throws {
        #expect(try !onlyCallerAndPath(source, .get, ["a", "x"]))
    }
}
