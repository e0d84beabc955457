import KuraCore
import KuraModel
import Testing

@testable import KuraRules

/// `RuleSet.listDependsOnDocument(inCollection:)`: the static analysis that lets the server decide a `list` once
/// per collection instead of once per document.
@Suite struct ListDependencyTests {
    private func depends(_ source: String, _ collection: [String]) throws -> Bool {
        try RuleSet.compile(source: "rules_version = '1';\n" + source, fileName: "t.rules")
            .listDependsOnDocument(inCollection: collection)
    }

    @Test(
        "decisions that cannot vary between a collection's documents",
        arguments: [
            // Path variables before the document ID, auth, time and constant lookups do not vary.
            ("match /users/{uid}/{rest=**} { allow read: if request.auth.uid == uid; }", ["users", "u1", "notes"]),
            ("match /quizzes/{id} { allow read: if true; }", ["quizzes"]),
            ("match /a/{id} { allow list: if request.auth.token.admin == true && request.time != null; }", ["a"]),
            ("match /a/{id} { allow list: if exists(/b/$(request.auth.uid)); }", ["a"]),
            ("match /a/{id} { allow list: if request.resource == null; }", ["a"]),
            // Reads of `resource` under other methods, or in blocks that cannot match, do not count.
            ("match /a/{id} { allow get: if resource.data.x == 1; allow list: if true; }", ["a"]),
            ("match /b/{id} { allow list: if resource.data.x == 1; }", ["a"]),
            ("match /a/{id}/c/{c} { allow list: if c == 'x'; }", ["a"]),
            // A `**` that matches nothing after the document ID is constant.
            ("match /a/{id}/{rest=**} { allow list: if rest == ''; }", ["a"]),
            ("function f(x) { return x == 'k'; } match /a/{k}/b/{id} { allow list: if f(k); }", ["a", "k", "b"]),
        ])
    func independent(source: String, collection: [String]) throws {
        #expect(try !depends(source, collection))
    }

    @Test(
        "decisions that may vary between documents",
        arguments: [
            ("match /a/{id} { allow list: if resource.data.owner == request.auth.uid; }", ["a"]),
            ("match /a/{id} { allow read: if resource != null; }", ["a"]),
            ("match /a/{id} { allow list: if id != 'secret'; }", ["a"]),
            ("match /users/{uid}/{rest=**} { allow read: if request.auth.uid == uid; }", ["users"]),
            ("match /a/{rest=**} { allow list: if rest.size() > 3; }", ["a"]),
            ("match /a/{id} { allow list: if request.path == /a/b; }", ["a"]),
            ("match /a/{id} { allow list: if request.method == 'list' && request.size() > 0; }", ["a"]),
            ("match /a/special { allow list: if true; }", ["a"]),
            // Through functions, including functions calling functions.
            (
                "function mine() { return resource.data.owner == request.auth.uid; } match /a/{id} { allow list: if mine(); }",
                ["a"]
            ),
            (
                "function g() { return resource.data.x; } function f() { return g() == 1; } match /a/{id} { allow list: if f(); }",
                ["a"]
            ),
            ("match /a/{id} { function isX() { return id == 'x'; } allow list: if isX(); }", ["a"]),
            ("function f(v) { let w = v; return w == 'x'; } match /a/{id} { allow list: if f(id); }", ["a"]),
        ])
    func dependent(source: String, collection: [String]) throws {
        #expect(try depends(source, collection))
    }

    @Test("the analysis agrees with evaluation: an independent decision is the same for every document")
    func agreesWithEvaluation() throws {
        let rules = try RuleSet.compile(
            source: """
                match /users/{uid}/notes/{note} { allow list: if request.auth.uid == uid; }
                match /open/{id} { allow list: if resource.data.public == true; }
                """, fileName: "t.rules")
        #expect(!rules.listDependsOnDocument(inCollection: ["users", "alice", "notes"]))
        #expect(rules.listDependsOnDocument(inCollection: ["open"]))
        for id in ["n1", "n2", "_"] {
            for data: JSONObject in [["x": 1], ["public": true]] {
                let context = RuleContext(auth: RuleAuth(uid: "alice"), resource: RuleDocument(id: id, data: data))
                #expect(
                    rules.evaluate(method: .list, path: ["users", "alice", "notes", id], context: context).isAllowed)
                #expect(
                    !rules.evaluate(method: .list, path: ["users", "bob", "notes", id], context: context).isAllowed)
            }
        }
    }
}
