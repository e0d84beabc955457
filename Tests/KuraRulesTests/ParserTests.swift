import Testing

@testable import KuraRules

@Suite struct LexerTests {
    @Test func tokensAndPositions() throws {
        var lexer = Lexer("a && b\n  'x\\n' 12 3.5 1e3 /* c */ // d\n>=")
        var kinds: [TokenKind] = []
        var positions: [SourcePosition] = []
        while true {
            let token = try lexer.next()
            if case .eof = token.kind { break }
            kinds.append(token.kind)
            positions.append(token.position)
        }
        #expect(
            kinds == [
                .identifier("a"), .symbol("&&"), .identifier("b"), .string("x\n"), .int(12), .float(3.5),
                .float(1000), .symbol(">="),
            ])
        #expect(positions[3] == SourcePosition(line: 2, column: 3))
        #expect(positions.last == SourcePosition(line: 3, column: 1))
    }

    @Test(arguments: [
        (#"'a\'b'"#, "a'b"), (#""q\"q""#, "q\"q"), (#"'\t\r\\'"#, "\t\r\\"), (#"'\u00e9'"#, "é"), ("'ü'", "ü"),
        (#""it's""#, "it's"),
    ])
    func escapes(source: String, expected: String) throws {
        var lexer = Lexer(source)
        #expect(try lexer.next().kind == .string(expected))
    }

    @Test func everySymbol() throws {
        let symbols = ["&&", "||", "==", "!=", "<=", ">=", "!", "<", ">", "+", "-", "*", "/", "%", "(", ")", "[", "]"]
        var lexer = Lexer(symbols.joined(separator: " "))
        for symbol in symbols { #expect(try lexer.next().kind == .symbol(symbol)) }
    }
}

@Suite struct ParserTests {
    @Test(arguments: [
        ("1 + 2 * 3 == 7", true), ("(1 + 2) * 3 == 9", true), ("10 - 4 - 3 == 3", true), ("7 % 4 == 3", true),
        ("true || false && false", true), ("!false && true", true), ("-2 * 3 == -6", true), ("- (2 + 3) == -5", true),
        ("1 < 2 == true", true), ("1 + 1 in [2]", true), ("'a' + 'b' == 'ab'", true),
        ("(true ? 1 : 2) == 1", true), ("true ? 1 : 2 == 1", false), ("false ? 1 : true ? 2 : 3 == 2", false),
        ("1 is int && 2.0 is float", true),
        ("[1, 2] + [3] == [1, 2, 3]", true), ("{'a': 1}.a == 1", true), ("{'a': {'b': [5]}}['a'].b[0] == 5", true),
        ("8 / 2 / 2 == 2", true), ("!(1 == 2)", true), ("[1,2,].size() == 2", true),
    ])
    func precedence(condition: String, expected: Bool) throws {
        #expect(try allows(condition) == expected)
    }

    @Test func nestedMatchesFunctionsAndComments() throws {
        let source = """
            rules_version = '1';
            /* block
               comment */
            function top(a) { return a == 'x'; } // trailing
            service cloud.firestore {
              match /a/{x} {
                function inner(b) { let c = b + '!'; let d = c + '?'; return d == 'x!?'; }
                allow get: if top(x);
                match /b/{y} {
                  allow get: if inner(x) && y == 'k';
                }
              }
            }
            """
        let rules = try RuleSet.compile(source: source, fileName: "f")
        let context = RuleContext(auth: nil)
        #expect(rules.evaluate(method: .get, path: ["a", "x"], context: context) == .allow)
        #expect(!rules.evaluate(method: .get, path: ["a", "y"], context: context).isAllowed)
        #expect(rules.evaluate(method: .get, path: ["a", "x", "b", "k"], context: context) == .allow)
        #expect(!rules.evaluate(method: .get, path: ["a", "x", "b", "j"], context: context).isAllowed)
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "(", count: 5000) + "1" + String(repeating: ")", count: 5000)
        #expect(compileError("match /a { allow get: if \(deep) == 1; }")?.message.contains("nested too deeply") == true)
        let chain = Array(repeating: "1", count: 5000).joined(separator: " + ")
        #expect(compileError("match /a { allow get: if \(chain) == 1; }") != nil)
        let nots = String(repeating: "!", count: 100_000) + "true"
        #expect(compileError("match /a { allow get: if \(nots); }") != nil)
        let ternary = String(repeating: "true ? ", count: 5000) + "1" + String(repeating: " : 2", count: 5000)
        #expect(compileError("match /a { allow get: if \(ternary) == 1; }") != nil)
    }
}
