import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// The default rules enforced between two users: `users/{uid}/…` belongs to `uid`, through every data endpoint.
@Suite struct RulesCrossUserTests {
    /// Two users; B's notes (with "b-secret" in them) written by the administrator.
    private func withTwoUsers(_ body: (TestKura, Session, Session) throws -> Void) throws {
        try withRulesKura { server in
            let a = try server.signUp("a@example.com")
            let b = try server.signUp("b@example.com")
            try server.put("users/\(b.uid)", ["name": "b-secret"])
            try server.put("users/\(b.uid)/notes/n1", ["text": "b-secret", "rank": 1])
            try server.put("users/\(b.uid)/notes/n2", ["text": "b-secret", "rank": 2])
            try body(server, a, b)
        }
    }

    @Test("user A can neither read nor write user B's documents, through any endpoint or method")
    func otherUsersData() throws {
        try withTwoUsers { server, a, b in
            let note = "/api/docs/users/\(b.uid)/notes/n1"
            // Cached (the admin read just now), then after the cache dropped it: the loop path and the pool path.
            #expect(try server.request("GET", note).status == 200)
            #expect(try server.cachedVersion("users/\(b.uid)/notes/n1") == 1)
            expectDenied(try server.request("GET", note, as: a), hiding: "b-secret")
            expectDenied(try server.request("GET", "/api/docs/users/\(b.uid)", as: a), hiding: "b-secret")
            // A missing document of B's is 403 too, not 404: existence is not revealed.
            expectDenied(try server.request("GET", "/api/docs/users/\(b.uid)/notes/nope", as: a))
            expectDenied(try server.request("GET", "/api/docs/users/\(b.uid)/notes?limit=5", as: a), hiding: "b-secret")

            let data: [String: Any] = ["data": ["text": "hacked"]]
            expectDenied(try server.request("PUT", note, json: data, as: a))
            expectDenied(try server.request("PUT", "/api/docs/users/\(b.uid)/notes/new", json: data, as: a))
            expectDenied(try server.request("PUT", note + "?merge=true", json: data, as: a))
            expectDenied(try server.request("PATCH", note, json: data, as: a))
            expectDenied(try server.request("DELETE", note, as: a))
            expectDenied(try server.request("DELETE", "/api/docs/users/\(b.uid)/notes/nope", as: a))
            expectDenied(try server.request("POST", "/api/docs/users/\(b.uid)/notes", json: data, as: a))

            let query: [String: Any] = ["collection": "users/\(b.uid)/notes"]
            expectDenied(try server.request("POST", "/api/query", json: query, as: a), hiding: "b-secret")
            expectDenied(try server.request("POST", "/api/query/count", json: query, as: a))
            let writes: [[String: Any]] = [
                ["op": "update", "path": "users/\(b.uid)/notes/n1", "data": ["text": "hacked"]]
            ]
            expectDenied(try server.request("POST", "/api/commit", json: ["writes": writes], as: a))

            // Nothing of B's changed and nothing was created.
            let stored = try server.request("GET", note)
            #expect(stored.version == 1)
            #expect(JSON.equal(stored.data, ["text": "b-secret", "rank": 1]))
            #expect(try server.request("GET", "/api/docs/users/\(b.uid)/notes/new").status == 404)
            let count = try server.request("POST", "/api/query/count", json: query)
            #expect(count.json["count"] as? Int == 2)
        }
    }

    @Test("a commit with one allowed and one denied write is refused whole, and nothing is written")
    func mixedCommit() throws {
        try withTwoUsers { server, a, b in
            let writes: [[String: Any]] = [
                ["op": "set", "path": "users/\(a.uid)/notes/mine", "data": ["text": "ok"]],
                ["op": "delete", "path": "users/\(b.uid)/notes/n2"],
            ]
            let refused = try server.request("POST", "/api/commit", json: ["writes": writes], as: a)
            expectDenied(refused)
            let message = (refused.json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains("delete") && message.contains("users/\(b.uid)/notes/n2"), "\(message)")
            #expect(try server.request("GET", "/api/docs/users/\(a.uid)/notes/mine").status == 404)
            #expect(try server.request("GET", "/api/docs/users/\(b.uid)/notes/n2").status == 200)

            let allowed = try server.request("POST", "/api/commit", json: ["writes": [writes[0]]], as: a)
            #expect(allowed.status == 200, "\(allowed)")
            #expect(try server.request("GET", "/api/docs/users/\(a.uid)/notes/mine").status == 200)
        }
    }

    @Test("a collection-group query checks each document at its own path: A gets only A's notes")
    func collectionGroup() throws {
        try withTwoUsers { server, a, b in
            try server.put("users/\(a.uid)/notes/a1", ["text": "mine", "rank": 3])
            try server.put("users/\(a.uid)/drafts/x/notes/a2", ["text": "mine too", "rank": 4])
            let query: [String: Any] = ["collectionGroup": "notes", "orderBy": [["field": "rank"]]]
            let response = try server.request("POST", "/api/query", json: query, as: a)
            #expect(response.status == 200, "\(response)")
            #expect(response.documentIDs == ["a1", "a2"])
            #expect(!response.body.contains("b-secret"))
            let count = try server.request("POST", "/api/query/count", json: query, as: a)
            #expect(count.json["count"] as? Int == 2, "\(count)")
            let asB = try server.request("POST", "/api/query", json: query, as: b)
            #expect(asB.documentIDs == ["n1", "n2"])
            let asAdmin = try server.request("POST", "/api/query/count", json: query)
            #expect(asAdmin.json["count"] as? Int == 4)
        }
    }

    @Test("a user's own documents work through every endpoint and method")
    func ownData() throws {
        try withTwoUsers { server, a, _ in
            let base = "/api/docs/users/\(a.uid)/notes"
            let put = try server.request("PUT", base + "/n1", json: ["data": ["text": "hi", "rank": 1]], as: a)
            #expect(put.status == 200, "\(put)")
            #expect(JSON.equal(put.data, ["text": "hi", "rank": 1]))
            let patch = try server.request("PATCH", base + "/n1", json: ["data": ["text": "hello"]], as: a)
            #expect(patch.status == 200, "\(patch)")
            #expect(patch.version == 2)
            let merged = try server.request("PUT", base + "/n1?merge=true", json: ["data": ["tag": "x"]], as: a)
            #expect(JSON.equal(merged.data, ["text": "hello", "rank": 1, "tag": "x"]))
            let created = try server.request("POST", base, json: ["data": ["text": "new", "rank": 2]], as: a)
            #expect(created.status == 201, "\(created)")
            let got = try server.request("GET", base + "/n1", as: a)
            #expect(got.status == 200)
            #expect(got.version == 3)
            // Again, now from the cache, on the event loop.
            #expect(try server.cachedVersion("users/\(a.uid)/notes/n1") == 3)
            #expect(try server.request("GET", base + "/n1", as: a).version == 3)
            #expect(try server.request("GET", base + "/missing", as: a).status == 404)
            let list = try server.request("GET", base + "?orderBy=rank", as: a)
            #expect(list.documentIDs.count == 2)
            let query = ["collection": "users/\(a.uid)/notes", "orderBy": [["field": "rank"]]] as [String: Any]
            let queried = try server.request("POST", "/api/query", json: query, as: a)
            #expect(queried.documentIDs.first == "n1")
            #expect(try server.request("POST", "/api/query/count", json: query, as: a).json["count"] as? Int == 2)
            let commit = try server.request(
                "POST", "/api/commit",
                json: ["writes": [["op": "update", "path": "users/\(a.uid)/notes/n1", "data": ["rank": 5]]]], as: a)
            #expect(commit.status == 200, "\(commit)")
            #expect(try server.request("DELETE", base + "/n1", as: a).status == 204)
            #expect(try server.request("GET", base + "/n1", as: a).status == 404)
            // Deleting a missing document of one's own is allowed (204), as without rules.
            #expect(try server.request("DELETE", base + "/n1", as: a).status == 204)
        }
    }

    @Test("the admin key still bypasses the rules everywhere")
    func adminBypasses() throws {
        try withTwoUsers { server, _, b in
            try server.put("secrets/s1", ["x": 1])  // no rule matches `secrets`
            #expect(try server.request("GET", "/api/docs/secrets/s1").status == 200)
            #expect(try server.request("GET", "/api/docs/secrets").documentIDs == ["s1"])
            #expect(try server.request("POST", "/api/docs/secrets", json: ["data": [:]]).status == 201)
            #expect(try server.request("DELETE", "/api/docs/users/\(b.uid)/notes/n1").status == 204)
            let count = try server.request("POST", "/api/query/count", json: ["collection": "secrets"])
            #expect(count.json["count"] as? Int == 2)
        }
    }
}
