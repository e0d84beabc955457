import KuraCore
import KuraModel

@testable import KuraRules

/// Compiles `allow get: if <condition>` on `/docs/{id}` and evaluates it on `/docs/d1`.
func decide(
    _ condition: String, auth: RuleAuth? = RuleAuth(uid: "alice", token: ["admin": true]),
    data: JSONObject? = ["n": 1, "s": "hello", "tags": ["a", "b"]], functions: String = "",
    lookup: @escaping RuleContext.Lookup = { _ in nil }
) throws -> RuleDecision {
    let source = "\(functions)\nmatch /docs/{id} { allow get: if \(condition); }"
    let rules = try RuleSet.compile(source: source, fileName: "t.rules")
    let context = RuleContext(
        auth: auth, resource: data.map { RuleDocument(id: "d1", data: $0) },
        requestResource: data.map { RuleDocument(id: "d1", data: $0) }, time: 1_700_000_000_000_000, lookup: lookup)
    return rules.evaluate(method: .get, path: ["docs", "d1"], context: context)
}

/// `true` when the condition allows.
func allows(_ condition: String, functions: String = "") throws -> Bool {
    try decide(condition, functions: functions).isAllowed
}

/// The static error for `source`, or `nil` when it compiles.
func compileError(_ source: String) -> RulesError? {
    do {
        _ = try RuleSet.compile(source: source, fileName: "f.rules")
        return nil
    } catch {
        return error
    }
}
