import KuraCore
import KuraModel
import Testing

@testable import KuraRules

@Suite struct EvaluatorTests {
    @Test(arguments: [
        "1 == 1.0", "1 != 2", "'a' < 'b'", "2 <= 2", "3 > 2.5", "3 >= 3", "null == null", "[1, [2]] == [1, [2]]",
        "{'a': 1, 'b': 2} == {'b': 2, 'a': 1}", "'a' in ['a']", "'s' in resource.data", "!('zz' in resource.data)",
        "7 / 2 == 3", "7.0 / 2 == 3.5", "-7 % 3 == -1", "5.5 % 2 == 1.5", "'ab' + 'c' == 'abc'",
        "resource.data.n + 1 == 2", "resource.data.tags[1] == 'b'", "resource.data['s'] == 'hello'",
        "resource.id == 'd1'", "request.resource.data.s.size() == 5", "request.method == 'get'",
        "request.time >= request.time", "request.time == request.time", "request.time is timestamp",
        "request.auth.uid == 'alice'", "request.auth.token.admin == true", "request.path is path",
        "resource.data.keys().hasAll(['n', 's'])", "resource.data.keys().hasAny(['x', 'n'])",
        "resource.data.keys().hasOnly(['n', 's', 'tags', 'extra'])", "!resource.data.keys().hasOnly(['n'])",
        "resource.data.size() == 3", "[1, 2].size() == 2", "'héllo'.size() == 5", "'AbC'.lower() == 'abc'",
        "'AbC'.upper() == 'ABC'", "' x '.trim() == 'x'", "'abc123'.matches('[a-z]+[0-9]+')", "!'abc'.matches('b')",
        "'abc'.matches('a' + '.*')", "resource.data.get('zz', 5) == 5", "resource.data.get('n', 5) == 1",
        "{'k': 1}.values() == [1]", "1 is number && 1.5 is number && 'x' is string && true is bool",
        "null is null && [] is list && {} is map && /a/b is path", "!(1 is string)", "(1 == 1 ? 'y' : 'n') == 'y'",
        "request.time.toMillis() == 1700000000000", "!(false && (1 / 0 == 1))", "true || (1 / 0 == 1)",
        "/a/$(id)/c == /a/d1/c", "/a/b/c[1] == 'b'", "\"dq\" == 'dq'", "-(-3) == 3", "-1.5 < 0",
    ])
    func allowsTrueExpressions(condition: String) throws {
        #expect(try allows(condition), "\(condition)")
    }

    @Test(arguments: [
        "resource.data.missing == 1", "1 / 0 == 0", "1 % 0 == 0", "resource.data.s + 1 == 2",
        "resource.data.n && true", "!resource.data.n", "resource.data.n < 'x'", "resource.data.s.keys() == []",
        "resource.data.tags[5] == 'x'", "resource.data.tags['x'] == 1", "resource.data.n.size() == 1",
        "resource.data.s in resource.data.n", "resource.data.n", "resource.data.s",
        "9223372036854775807 + resource.data.n > 0",
        "-resource.data.s == 1", "resource.data.n ? true : false", "resource.data.n.x == 1",
        "[1].hasAll(resource.data.n)", "resource.data.s.matches(resource.data.n)", "resource.data.s.matches('(' + '')",
        "/a/$(resource.data.tags)/b == /a/b", "{resource.data.n: 1} == {}",
    ])
    func errorsAndFalseDeny(condition: String) throws {
        #expect(try !allows(condition), "\(condition)")
    }

    @Test(arguments: [
        "'a' + 1 == 'a1'", "resource.data.n in 5", "request.time - 1 > request.time", "!'x'", "[1] < [2]",
        "1.size() == 1",
    ])
    func staticTypeErrors(condition: String) {
        #expect(compileError("match /a/{b} { allow get: if \(condition); }") != nil, "\(condition)")
    }

    @Test func signedOutAuthIsNull() throws {
        #expect(try decide("request.auth == null", auth: nil).isAllowed)
        #expect(try !decide("request.auth.uid == 'x'", auth: nil).isAllowed)
        if case .deny(let reason) = try decide("request.auth.uid == 'x'", auth: nil) {
            #expect(reason.contains("failed"))
            #expect(reason.contains("cannot read field 'uid' of null"))
        }
    }

    @Test func resourceIsNullWhenAbsent() throws {
        #expect(try decide("resource == null && request.resource == null", data: nil).isAllowed)
        #expect(try !decide("resource.data.n == 1", data: nil).isAllowed)
    }

    @Test func functionsWithLetsAndScopes() throws {
        let functions = "function add(a, b) { let s = a + b; let t = s * 2; return t; }"
        #expect(try allows("add(1, 2) == 6", functions: functions))
        #expect(try allows("add(add(1, 1), 1) == 10", functions: functions))
        // Top-level functions do not see match variables; functions inside a match do, and parameters shadow them.
        #expect(compileError("function g() { return id; } match /docs/{id} { allow get: if g() == id; }") != nil)
        let rules = try RuleSet.compile(
            source: """
                match /docs/{id} {
                  function f(id) { return id; }
                  function g() { return id; }
                  allow get: if f('z') == 'z' && g() == 'd1';
                }
                """, fileName: "f")
        #expect(rules.evaluate(method: .get, path: ["docs", "d1"], context: RuleContext(auth: nil)) == .allow)
    }

    @Test func callBudgetStopsExponentialFunctions() throws {
        var functions = "function f0() { return true; }\n"
        for level in 1...25 { functions += "function f\(level)() { return f\(level - 1)() && f\(level - 1)(); }\n" }
        #expect(try !allows("f25()", functions: functions))
        #expect(try allows("f5()", functions: functions))
    }

    @Test func concatenationIsBounded() throws {
        var functions = "function d0(s) { return s + s; }\n"
        for level in 1...30 { functions += "function d\(level)(s) { return d\(level - 1)(d\(level - 1)(s)); }\n" }
        #expect(try !allows("d30('x').size() > 0", functions: functions))
    }

    @Test func anyMatchingAllowGrants() throws {
        let rules = try RuleSet.compile(
            source: "match /a/{x} { allow get: if false; allow get: if x == 'ok'; allow list: if true; }", fileName: "f"
        )
        let context = RuleContext(auth: nil)
        #expect(rules.evaluate(method: .get, path: ["a", "ok"], context: context) == .allow)
        #expect(!rules.evaluate(method: .get, path: ["a", "no"], context: context).isAllowed)
        #expect(rules.evaluate(method: .list, path: ["a", "no"], context: context) == .allow)
        #expect(!rules.evaluate(method: .delete, path: ["a", "ok"], context: context).isAllowed)
    }
}
