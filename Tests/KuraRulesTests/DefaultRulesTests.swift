import KuraCore
import KuraModel
import Testing

@testable import KuraRules

@Suite struct DefaultRulesTests {
    let rules = RuleSet.defaultRules

    private func decide(_ method: RuleMethod, _ path: [String], auth: RuleAuth?) -> Bool {
        let document = RuleDocument(id: path.last ?? "", data: ["title": "T"])
        let context = RuleContext(auth: auth, resource: document, requestResource: document)
        return rules.evaluate(method: method, path: path, context: context).isAllowed
    }

    @Test(arguments: RuleMethod.allCases)
    func usersOwnTheirSubtree(method: RuleMethod) {
        let alice = RuleAuth(uid: "alice")
        let bob = RuleAuth(uid: "bob")
        for path in [["users", "alice"], ["users", "alice", "notes", "n1"], ["users", "alice", "a", "b", "c", "d"]] {
            #expect(decide(method, path, auth: alice), "alice \(method) \(path)")
            #expect(!decide(method, path, auth: bob), "bob \(method) \(path)")
            #expect(!decide(method, path, auth: nil), "signed out \(method) \(path)")
        }
    }

    @Test(arguments: RuleMethod.allCases)
    func quizzesReadByAnyoneWrittenByAdmins(method: RuleMethod) {
        let isRead = method == .get || method == .list
        let admin = RuleAuth(uid: "root", token: ["admin": true])
        let notAdmin = RuleAuth(uid: "alice", token: ["admin": false, "email": "a@x"])
        #expect(decide(method, ["quizzes", "q1"], auth: nil) == isRead)
        #expect(decide(method, ["quizzes", "q1"], auth: RuleAuth(uid: "alice")) == isRead)
        #expect(decide(method, ["quizzes", "q1"], auth: notAdmin) == isRead)
        #expect(decide(method, ["quizzes", "q1"], auth: admin))
        #expect(!decide(method, ["quizzes", "q1", "answers", "a"], auth: admin))
        #expect(!decide(method, ["other", "x"], auth: admin))
    }

    @Test func defaultTestTablePasses() throws {
        let table = try RulesTestTable.decode(json: RuleSet.defaultTestTable)
        #expect(table.cases.count >= 10)
        let results = table.run(rules)
        for result in results { #expect(result.passed, "\(result.name): \(result.decision)") }
    }

    @Test func tableRunnerReportsFailuresAndDocuments() throws {
        let json = """
            {"rules": "custom.rules", "documents": {"/admins/alice": {}},
             "cases": [
              {"name": "admin via lookup", "auth": {"uid": "alice"}, "method": "update", "path": ["p", "1"],
               "data": {"v": 2}, "existing": {"v": 1}, "expect": "allow"},
              {"name": "wrong expectation", "auth": null, "method": "get", "path": "/p/1", "expect": "allow"}
             ]}
            """
        let table = try RulesTestTable.decode(json: json)
        #expect(table.rulesFile == "custom.rules")
        let rules = try RuleSet.compile(
            source: """
                match /p/{id} {
                  allow update: if exists(/admins/$(request.auth.uid))
                    && request.resource.data.v == resource.data.v + 1;
                }
                """, fileName: "custom.rules")
        let results = table.run(rules)
        #expect(results.map(\.passed) == [true, false])
        #expect(results[0].line == "PASS admin via lookup (allow)")
        // A failure says what was expected and what the rules decided, with the rules' reason.
        #expect(
            results[1].line
                == "FAIL wrong expectation: expected allow, got deny (no 'allow get' rule matches this path)")
    }

    @Test(arguments: [
        "{", #"{"cases": [{"method": "get", "path": "/a", "expect": "maybe"}]}"#,
        #"[{"method": "fetch", "path": "/a", "expect": "allow"}]"#,
        #"[{"method": "get", "path": 3, "expect": "deny"}]"#,
        #"[{"method": "get", "path": "/a", "auth": {"token": {}}, "expect": "deny"}]"#,
        // Nothing is silently ignored or dropped: misspelt keys, wrong types, a document listed twice.
        #"[{"method": "get", "path": "/a", "existng": {"v": 1}, "expect": "deny"}]"#,
        #"{"cases": [], "documnets": {}}"#,
        #"[{"method": "get", "path": "/a", "auth": {"uid": "u", "tokn": {}}, "expect": "deny"}]"#,
        #"[{"method": "get", "path": "/a", "auth": {"uid": "u", "token": "admin"}, "expect": "deny"}]"#,
        #"[{"method": "get", "path": "/a", "time": "2026-01-01T00:00:00Z", "expect": "deny"}]"#,
        #"[{"method": "get", "path": "/a", "time": 1.5e15, "expect": "deny"}]"#,
        #"[{"name": 7, "method": "get", "path": "/a", "expect": "deny"}]"#,
        #"{"rules": 3, "cases": []}"#,
        #"{"documents": {"/a/b": {"v": 1}, "a/b": {"v": 2}}, "cases": []}"#,
        #"[{"method": "get", "path": "/a", "data": {"n": 9223372036854775808}, "expect": "deny"}]"#,
    ])
    func malformedTablesAreRejected(json: String) {
        #expect(throws: RulesTableError.self) { try RulesTestTable.decode(json: json) }
    }

    @Test func benchmarkDefaultRules() {
        let context = RuleContext(auth: RuleAuth(uid: "alice", token: ["email": "a@x"]))
        let quizContext = RuleContext(auth: RuleAuth(uid: "root", token: ["admin": true]))
        let iterations = 100_000
        let clock = ContinuousClock()
        var allowed = 0
        let elapsed = clock.measure {
            for index in 0..<iterations {
                if index % 2 == 0 {
                    if rules.evaluate(method: .update, path: ["users", "alice", "notes", "n1"], context: context)
                        .isAllowed
                    {
                        allowed += 1
                    }
                } else if rules.evaluate(method: .create, path: ["quizzes", "q1"], context: quizContext).isAllowed {
                    allowed += 1
                }
            }
        }
        let perEvaluation = elapsed / iterations
        print(
            "KuraRules benchmark: \(iterations) evaluations of the default rules in \(elapsed) (\(perEvaluation) each)")
        #expect(allowed == iterations)
    }
}
