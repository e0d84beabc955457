import Testing

@testable import KuraRules

@Suite struct ErrorMessageTests {
    @Test(arguments: [
        ("match /a { allow read; }", "1:22", "needs a condition"),
        ("match /a {\n  allow get: if nope;\n}", "2:17", "unknown identifier 'nope'"),
        ("match /a { allow get: if f(); }", "1:26", "unknown function 'f'"),
        ("function f(a) { return a; }\nmatch /a { allow get: if f(); }", "2:26", "takes 1 argument, given 0"),
        ("match /a { allow get: if 'x'.size(1); }", "1:26", "takes 0 arguments"),
        ("match /a { allow get: if 'x'.frob(); }", "1:26", "unknown method 'frob'"),
        ("match /a { allow get: if 1 && 'a'; }", "1:26", "'&&' needs bool operands"),
        ("match /a { allow get: if 1 + true == 2; }", "1:26", "cannot combine int and bool"),
        ("match /a { allow get: if 1; }", "1:26", "condition must be a bool"),
        ("match /a { allow get: if 'a; }", "1:26", "unterminated string"),
        ("match /a { allow get: if true }", "1:31", "expected ';'"),
        ("match /a { allow fetch: if true; }", "1:18", "expected a method"),
        ("match /a {\n allow get: if true;\n", "3:1", "expected '}'"),
        ("allow get: if true;", "1:1", "must be inside a 'match'"),
        ("match a { }", "1:7", "path pattern starting with '/'"),
        ("match /a/{x=**}/b { }", "1:17", "must be the last segment"),
        ("match /a/{x}/{x} { }", "1:14", "bound twice"),
        ("match /a { allow get: if x is thing; }", "1:31", "expected a type name"),
        (
            "function f() { return g(); }\nfunction g() { return f(); }\nmatch /a { allow get: if f(); }", "1:1",
            "recursive"
        ),
        ("function f() { return true; }\nfunction f() { return true; }", "2:1", "defined twice"),
        ("match /a { allow get: if 1 ? true : false; }", "1:26", "bool condition"),
        ("match /a { allow get: if exists('x'); }", "1:26", "needs a path"),
        ("match /a { allow get: if 'a'.matches('(') ; }", "1:38", "invalid regular expression"),
        ("match /a { allow get: if request.nope == 1; }", "1:26", "request has no field 'nope'"),
        ("match /a { allow get: if 99999999999999999999 == 1; }", "1:26", "out of range"),
        ("match /a { allow get: if true; } #", "1:34", "unexpected character '#'"),
        ("/* never closed", "1:1", "unterminated block comment"),
        ("match /a { allow get: if exists(/x/); }", "1:36", "expected a path segment"),
        ("rules_version = '9';", "1:17", "unsupported rules_version"),
    ])
    func staticErrors(source: String, position: String, fragment: String) throws {
        let error = try #require(compileError(source), "expected an error for \(source)")
        #expect("\(error.line):\(error.column)" == position, "\(error)")
        #expect(error.message.contains(fragment), "\(error)")
        #expect(error.description.hasPrefix("f.rules:\(position): "))
    }
}
