import Foundation
import KuraModel
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// The default rules for callers without a token, with bad tokens, and for the public `quizzes`.
@Suite struct RulesAnonymousTests {
    /// Every data endpoint, as (method, target, body), aimed at user `uid`'s notes.
    private static func endpoints(_ uid: String) -> [(String, String, Any?)] {
        let note = "/api/docs/users/\(uid)/notes/n1"
        let data: [String: Any] = ["data": ["text": "x"]]
        let query: [String: Any] = ["collection": "users/\(uid)/notes"]
        return [
            ("GET", note, nil), ("GET", "/api/docs/users/\(uid)/notes", nil), ("PUT", note, data),
            ("PATCH", note, data), ("DELETE", note, nil), ("POST", "/api/docs/users/\(uid)/notes", data),
            ("POST", "/api/query", query), ("POST", "/api/query/count", query),
            ("POST", "/api/commit", ["writes": [["op": "set", "path": "users/\(uid)/notes/n1", "data": [:]]]]),
        ]
    }

    @Test("without a token every endpoint is 403 PERMISSION_DENIED for a user's data, and nothing changes")
    func anonymous() throws {
        try withRulesKura { server in
            let user = try server.signUp("u@example.com")
            try server.put("users/\(user.uid)/notes/n1", ["text": "secret"])
            #expect(try server.request("GET", "/api/docs/users/\(user.uid)/notes/n1").status == 200)  // cached
            for (method, target, body) in Self.endpoints(user.uid) {
                let response = try server.request(method, target, json: body, as: nil)
                expectDenied(response)
                let message = (response.json["error"] as? [String: Any])?["message"] as? String ?? ""
                #expect(message.contains("users/\(user.uid)/notes"), "\(method) \(target): \(message)")
            }
            let stored = try server.request("GET", "/api/docs/users/\(user.uid)/notes/n1")
            #expect(stored.version == 1)
            #expect(JSON.equal(stored.data, ["text": "secret"]))
        }
    }

    @Test("a bad, revoked or malformed token is 401 on every endpoint, never anonymous access")
    func badTokens() throws {
        try withRulesKura { server in
            let user = try server.signUp("u@example.com")
            try server.put("quizzes/q1", ["title": "public"])
            let revoked = try server.signUp("r@example.com")
            #expect(try server.request("POST", "/api/auth/signout", json: [:], as: revoked).status == 200)
            let tampered = String(user.idToken.dropLast(2)) + (user.idToken.hasSuffix("AA") ? "BB" : "AA")
            let auths: [(TestKura.Auth, ErrorCode)] = [
                (.header("Bearer \(tampered)"), .invalidIDToken),
                (.header("Bearer \(revoked.idToken)"), .invalidIDToken),
                (.header("Bearer not-a-token"), .invalidIDToken), (.header("Basic dXNlcjpwdw=="), .unauthenticated),
                (.header("Bearer "), .unauthenticated),
            ]
            // Quizzes are public, so a 401 here shows the bad token was not taken for "anonymous".
            let public_: [(String, String, Any?)] = [
                ("GET", "/api/docs/quizzes/q1", nil), ("POST", "/api/query", ["collection": "quizzes"]),
            ]
            for (method, target, body) in Self.endpoints(user.uid) + public_ {
                for (auth, code) in auths {
                    let response = try server.request(method, target, json: body, auth: auth)
                    expectError(response, 401, code)
                    #expect(!response.body.contains("public"), "\(method) \(target): \(response)")
                }
            }
        }
    }

    @Test("quizzes: anyone reads (get, list, query, count), signed out or in; writes need the admin claim")
    func quizzes() throws {
        try withRulesKura { server in
            try server.put("quizzes/q1", ["title": "Capitals"])
            try server.put("quizzes/q2", ["title": "Rivers"])
            let user = try server.signUp("player@example.com")
            for session in [nil, user] as [Session?] {
                #expect(try server.request("GET", "/api/docs/quizzes/q1", as: session).status == 200)  // cached
                #expect(
                    try server.request("GET", "/api/docs/quizzes/q1", as: session).data?["title"] as? String
                        == "Capitals")
                #expect(try server.request("GET", "/api/docs/quizzes", as: session).documentIDs == ["q1", "q2"])
                let query = try server.request("POST", "/api/query", json: ["collection": "quizzes"], as: session)
                #expect(query.documentIDs == ["q1", "q2"])
                let count = try server.request("POST", "/api/query/count", json: ["collection": "quizzes"], as: session)
                #expect(count.json["count"] as? Int == 2)
                #expect(try server.request("GET", "/api/docs/quizzes/none", as: session).status == 404)

                let data: [String: Any] = ["data": ["title": "Hacked"]]
                expectDenied(try server.request("PUT", "/api/docs/quizzes/q1", json: data, as: session))
                expectDenied(try server.request("PATCH", "/api/docs/quizzes/q1", json: data, as: session))
                expectDenied(try server.request("POST", "/api/docs/quizzes", json: data, as: session))
                expectDenied(try server.request("DELETE", "/api/docs/quizzes/q2", as: session))
                let commit = ["writes": [["op": "create", "path": "quizzes/q3", "data": ["title": "x"]]]]
                expectDenied(try server.request("POST", "/api/commit", json: commit, as: session))
            }
            #expect(try server.request("GET", "/api/docs/quizzes/q1").data?["title"] as? String == "Capitals")
            #expect(try server.request("GET", "/api/docs/quizzes").documentIDs == ["q1", "q2"])

            let admin = try server.signUpAdmin("quizmaster@example.com")
            let put = try server.request("PUT", "/api/docs/quizzes/q1", json: ["data": ["title": "Seas"]], as: admin)
            #expect(put.status == 200, "\(put)")
            let created = try server.request("POST", "/api/docs/quizzes", json: ["data": ["title": "New"]], as: admin)
            #expect(created.status == 201, "\(created)")
            #expect(
                try server.request("PATCH", "/api/docs/quizzes/q2", json: ["data": ["n": 1]], as: admin).status == 200)
            #expect(try server.request("DELETE", "/api/docs/quizzes/q2", as: admin).status == 204)
            let commit = ["writes": [["op": "create", "path": "quizzes/q3", "data": ["title": "x"]]]]
            #expect(try server.request("POST", "/api/commit", json: commit, as: admin).status == 200)
            #expect(try server.request("GET", "/api/docs/quizzes", as: nil).documentIDs.count == 3)
            // The admin claim is a rule input, not the admin key: an admin user has no way into other users' data.
            let other = try server.signUp("other@example.com")
            try server.put("users/\(other.uid)/notes/n", ["text": "secret"])
            expectDenied(try server.request("GET", "/api/docs/users/\(other.uid)/notes/n", as: admin))
        }
    }
}
