import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// Write rules: `create`/`update`/`delete` chosen by what is stored, `request.resource` as the write leaves the
/// document (merge, field paths, transforms), store errors only after the rules allowed, and atomicity under
/// concurrent writes.
@Suite struct RulesWriteTests {
    static let rules = """
        rules_version = '1';
        match /counters/{id} {
          allow get, list: if true;
          allow create: if request.resource.data.n is int && request.resource.data.n < 10;
          allow update: if request.resource.data.n < 10 && request.resource.data.label == resource.data.label;
          allow delete: if resource != null && resource.data.n < 5;
        }
        // A drop box: anyone signed in may write, nobody may read.
        match /posts/{id} {
          allow create, update: if request.auth != null;
        }
        match /race/{id} {
          allow get: if true;
          allow update: if request.resource.data.n <= 20;
        }
        match /hot/{id} {
          allow get: if true;
          allow update: if request.resource.data.n >= resource.data.n && request.resource.data.label == resource.data.label;
        }
        """

    private func commit(_ server: TestKura, _ writes: [[String: Any]], as session: Session) throws -> HTTPResponse {
        try server.request("POST", "/api/commit", json: ["writes": writes], as: session)
    }

    @Test("transforms count: an increment that pushes n to 10 is denied, one to 9 allowed")
    func transforms() throws {
        try withRulesKura(rules: Self.rules) { server in
            let user = try server.signUp("u@example.com")
            try server.put("counters/c", ["n": 8, "label": "L"])
            let increment: [[String: Any]] = [
                ["op": "update", "path": "counters/c", "data": [:], "transforms": [["field": "n", "increment": 1]]]
            ]
            #expect(try commit(server, increment, as: user).status == 200)
            expectDenied(try commit(server, increment, as: user))
            let maximum: [[String: Any]] = [
                ["op": "update", "path": "counters/c", "data": [:], "transforms": [["field": "n", "maximum": 12]]]
            ]
            expectDenied(try commit(server, maximum, as: user))
            let minimum: [[String: Any]] = [
                ["op": "update", "path": "counters/c", "data": [:], "transforms": [["field": "n", "minimum": 2]]]
            ]
            #expect(try commit(server, minimum, as: user).status == 200)
            let stored = try server.request("GET", "/api/docs/counters/c", as: user)
            #expect(stored.version == 3)
            #expect(JSON.equal(stored.data, ["n": 2, "label": "L"]))
        }
    }

    @Test("merge and field-path updates: the rules see the whole document after the write")
    func mergeAndUpdate() throws {
        try withRulesKura(rules: Self.rules) { server in
            let user = try server.signUp("u@example.com")
            try server.put("counters/c", ["n": 8, "label": "L"])
            let doc = "/api/docs/counters/c"
            #expect(try server.request("PUT", doc + "?merge=true", json: ["data": ["n": 3]], as: user).status == 200)
            // Without merge the label is gone, which the update rule refuses.
            expectDenied(try server.request("PUT", doc, json: ["data": ["n": 3]], as: user))
            #expect(try server.request("PATCH", doc, json: ["data": ["n": 4]], as: user).status == 200)
            expectDenied(try server.request("PATCH", doc, json: ["data": ["label": "other"]], as: user))
            expectDenied(try server.request("PATCH", doc, json: ["data": ["n": 11]], as: user))
            let stored = try server.request("GET", doc, as: user)
            #expect(JSON.equal(stored.data, ["n": 4, "label": "L"]))
            #expect(stored.version == 3)
        }
    }

    @Test("create vs update vs delete follow what is stored; the store's 409/404/412 come only after the rules")
    func methodsAndErrors() throws {
        try withRulesKura(rules: Self.rules) { server in
            let user = try server.signUp("u@example.com")
            try server.put("counters/c", ["n": 8, "label": "L"])
            // PUT of a missing document is a create.
            #expect(
                try server.request("PUT", "/api/docs/counters/new", json: ["data": ["n": 1]], as: user).status == 200)
            expectDenied(try server.request("PUT", "/api/docs/counters/big", json: ["data": ["n": 11]], as: user))
            // ?exists=true on a missing document: 403 if the rules refuse the data, else the precondition's 412.
            expectDenied(
                try server.request("PUT", "/api/docs/counters/x?exists=true", json: ["data": ["n": 11]], as: user))
            let missing = try server.request(
                "PUT", "/api/docs/counters/x?exists=true", json: ["data": ["n": 1]], as: user)
            expectError(missing, 412, .failedPrecondition)
            expectError(
                try server.request(
                    "PATCH", "/api/docs/counters/c", json: ["data": ["n": 1]], headers: [("If-Match", "9")], as: user),
                412, .failedPrecondition)
            expectDenied(try server.request("POST", "/api/docs/counters", json: ["data": ["n": "x"]], as: user))
            #expect(try server.request("POST", "/api/docs/counters", json: ["data": ["n": 1]], as: user).status == 201)
            // A create of an existing document is judged as an update first: 403, or 409 once allowed.
            expectDenied(try commit(server, [["op": "create", "path": "counters/c", "data": ["n": 20]]], as: user))
            let exists = try commit(
                server, [["op": "create", "path": "counters/c", "data": ["n": 1, "label": "L"]]], as: user)
            expectError(exists, 409, .alreadyExists)
            // An update of a missing document is judged as a create: 403, or 404 once allowed.
            expectDenied(try commit(server, [["op": "update", "path": "counters/y", "data": ["n": 50]]], as: user))
            let absent = try commit(server, [["op": "update", "path": "counters/y", "data": ["n": 1]]], as: user)
            expectError(absent, 404, .notFound)
            // delete: only below 5, and a missing document (resource == null) is refused by this rule.
            expectDenied(try server.request("DELETE", "/api/docs/counters/c", as: user))
            expectDenied(try server.request("DELETE", "/api/docs/counters/zzz", as: user))
            #expect(try server.request("DELETE", "/api/docs/counters/new", as: user).status == 204)
            #expect(try server.request("GET", "/api/docs/counters/c", as: user).version == 1)
        }
    }

    @Test("writes to one document in a commit are checked in order, each against the previous one's result")
    func sameDocumentTwice() throws {
        try withRulesKura(rules: Self.rules) { server in
            let user = try server.signUp("u@example.com")
            let ok: [[String: Any]] = [
                ["op": "create", "path": "counters/m", "data": ["n": 1, "label": "a"]],
                ["op": "update", "path": "counters/m", "data": ["n": 2]],
            ]
            #expect(try commit(server, ok, as: user).status == 200)
            #expect(try server.request("GET", "/api/docs/counters/m", as: user).version == 2)
            let denied: [[String: Any]] = [
                ["op": "create", "path": "counters/m2", "data": ["n": 1, "label": "a"]],
                ["op": "update", "path": "counters/m2", "data": ["n": 50]],
            ]
            expectDenied(try commit(server, denied, as: user))
            #expect(try server.request("GET", "/api/docs/counters/m2", as: user).status == 404)
        }
    }

    @Test("a write the caller may make but not read answers its metadata without the data")
    func writeOnly() throws {
        try withRulesKura(rules: Self.rules) { server in
            let user = try server.signUp("u@example.com")
            try server.put("posts/p1", ["title": "t", "private": "secret"])
            let patched = try server.request("PATCH", "/api/docs/posts/p1", json: ["data": ["n": 1]], as: user)
            #expect(patched.status == 200, "\(patched)")
            #expect(patched.version == 2)
            #expect(patched.json["data"] == nil && !patched.body.contains("secret"))
            let merged = try server.request("PUT", "/api/docs/posts/p1?merge=true", json: ["data": ["m": 1]], as: user)
            #expect(merged.status == 200 && merged.json["data"] == nil && !merged.body.contains("secret"))
            expectDenied(try server.request("GET", "/api/docs/posts/p1", as: user))
        }
    }

    @Test("concurrent rule-checked writes never get past a rule that a stale read would have allowed")
    func concurrentUpdates() throws {
        try withRulesKura(rules: Self.rules) { server in
            let user = try server.signUp("u@example.com")
            try server.put("race/r", ["n": 0])
            let statuses = Shared<[Int]>([])
            let port = server.port
            let adminKey = server.adminKey
            let token = user.idToken
            onThreads(40) { _ in
                let writes: [[String: Any]] = [
                    ["op": "update", "path": "race/r", "data": [:], "transforms": [["field": "n", "increment": 1]]]
                ]
                let status =
                    (try? APIClient(port: port, adminKey: adminKey).request(
                        "POST", "/api/commit", json: ["writes": writes], auth: .header("Bearer \(token)")))?.status ?? 0
                statuses.withLock { $0.append(status) }
            }
            let all = statuses.current
            let n = try #require(try server.request("GET", "/api/docs/race/r").data?["n"] as? Int)
            // Plain writes do not fail for contention: exactly the first 20 went through, the rest were denied.
            #expect(n == 20)
            #expect(all.filter { $0 == 200 }.count == 20, "\(all)")
            #expect(all.allSatisfy { [200, 403].contains($0) }, "\(all)")
        }
    }

    @Test("plain rule-checked writes looping on one hot document all go through, none ABORTED")
    func hotDocument() throws {
        try withRulesKura(rules: Self.rules) { server in
            let user = try server.signUp("u@example.com")
            try server.put("hot/h", ["n": 0, "label": "x"])
            let statuses = Shared<[Int]>([])
            let port = server.port
            let adminKey = server.adminKey
            let token = user.idToken
            let (writers, rounds) = (8, 25)
            // Half the writers increment n in a commit, half PATCH the label: both pinned to what the rules saw.
            onThreads(writers) { writer in
                guard let client = try? APIClient(port: port, adminKey: adminKey) else { return }
                for _ in 0..<rounds {
                    let increment: [[String: Any]] = [
                        ["op": "update", "path": "hot/h", "data": [:], "transforms": [["field": "n", "increment": 1]]]
                    ]
                    let response =
                        writer % 2 == 0
                        ? try? client.request(
                            "PATCH", "/api/docs/hot/h", json: ["data": ["label": "x"]],
                            auth: .header("Bearer \(token)"))
                        : try? client.request(
                            "POST", "/api/commit", json: ["writes": increment], auth: .header("Bearer \(token)"))
                    statuses.withLock { $0.append(response?.status ?? 0) }
                }
            }
            let all = statuses.current
            #expect(all.count == writers * rounds)
            #expect(all.allSatisfy { $0 == 200 }, "\(all)")
            let n = try #require(try server.request("GET", "/api/docs/hot/h").data?["n"] as? Int)
            #expect(n == writers / 2 * rounds)
        }
    }
}
