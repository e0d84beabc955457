// libFuzzer harness for the rules language: any text is compiled (a RulesError or a rule set, never a crash), and
// a rule set that compiles is evaluated for every method on a few paths.
import KuraCore
import KuraModel

@testable import KuraRules

@_cdecl("LLVMFuzzerTestOneInput")
public func rulesFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let source = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let rules = try? RuleSet.compile(source: source, fileName: "fuzz.rules") else { return 0 }
    let document = RuleDocument(id: "n", data: ["title": "T", "n": 1, "tags": ["a"]])
    let context = RuleContext(
        auth: RuleAuth(uid: "a", token: ["admin": true]), resource: document, requestResource: document,
        time: 1_700_000_000_000_000, lookup: { $0.count % 2 == 0 ? ["owner": "a"] : nil })
    for method in RuleMethod.allCases {
        for path in [["users", "a"], ["users", "a", "notes", "n"], ["quizzes", "q"], []] {
            _ = rules.evaluate(method: method, path: path, context: context)
        }
    }
    return 0
}
