import KuraTestSupport
import Testing

@testable import KuraRules

/// Feeds random and mutated inputs through compile (and evaluate when they compile): nothing may crash.
@Suite struct RobustnessTests {
    static let fragments = [
        "match", "allow", "function", "return", "let", "if", "read", "write", "get", "list", "create", ":", ";", "{",
        "}", "(", ")", "[", "]", "/", "/users/{uid}", "/{rest=**}", "$(", "request.auth.uid", "resource.data", "==",
        "&&", "||", "!", "?", "'s'", "\"d\"", "1", "2.5", "-", "+", "*", "%", "in", "is", "string", "null", "true",
        ".size()", ".keys()", ".hasAll([", "exists(/a/b)", "get(/a/$(x)).data", "'\\u00", "/*", "*/", "//", "\n",
        " ", "rules_version = '1';", "=", ",", "x", "f(", "**", "é", "\u{0}",
    ]

    @Test func randomAndMutatedInputsNeverCrash() {
        var generator = SplitMix(state: 0x5EED)
        let seeds = [RuleSet.defaultSource] + Self.corpus
        var compiled = 0
        for iteration in 0..<4_000 {
            var source: String
            if iteration % 2 == 0 {
                source = (0..<Int.random(in: 1...40, using: &generator)).map { _ in
                    Self.fragments.randomElement(using: &generator)!
                }.joined(separator: Bool.random(using: &generator) ? " " : "")
            } else {
                var bytes = Array(seeds.randomElement(using: &generator)!.utf8)
                for _ in 0..<Int.random(in: 1...6, using: &generator) {
                    guard !bytes.isEmpty else { break }
                    let position = Int.random(in: 0..<bytes.count, using: &generator)
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0: bytes.remove(at: position)
                    case 1: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: position)
                    case 2: bytes[position] = UInt8.random(in: 32...126, using: &generator)
                    default:
                        let fragment = Self.fragments.randomElement(using: &generator)!
                        bytes.insert(contentsOf: Array(fragment.utf8), at: position)
                    }
                }
                source = String(decoding: bytes, as: UTF8.self)
            }
            if let rules = try? RuleSet.compile(source: source, fileName: "fuzz") {
                compiled += 1
                for method in RuleMethod.allCases {
                    _ = rules.evaluate(
                        method: method, path: ["users", "a", "notes", "n"],
                        context: RuleContext(auth: RuleAuth(uid: "a"), lookup: { _ in [:] }))
                }
            }
        }
        print("KuraRules robustness: 4000 inputs, \(compiled) compiled")
        #expect(compiled > 0)
    }

    static let corpus = [
        "match /a/{b} { allow read: if b.matches('[a-z]+') && resource.data.x in [1, 2]; }",
        "function f(a, b) { let c = a + b; return c > 2 ? true : false; } match /x/{y=**} { allow write: if f(1, 2); }",
        "match /a/{b} { match /c/{d} { allow get: if get(/a/$(b)).data.owner == request.auth.uid; } }",
    ]
}
