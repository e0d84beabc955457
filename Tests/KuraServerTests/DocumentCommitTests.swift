import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// `POST /api/commit`: results, atomicity, preconditions, limits and field transforms.
@Suite struct DocumentCommitTests {
    @Test("a commit applies every write in order and reports each one's version at one commit time")
    func commit() throws {
        try withTestKura { server in
            try server.put("c/existing", ["n": 1, "keep": "yes"])
            let response = try server.commit([
                ["op": "create", "path": "c/new", "data": ["n": 1]],
                ["op": "set", "path": "c/existing", "data": ["m": 2], "merge": true],
                ["op": "update", "path": "c/existing", "data": ["n": 5, "deep.x": 1]],
                ["op": "set", "path": "c/replaced", "data": ["a": 1]],
                ["op": "delete", "path": "c/gone"],
            ])
            let results = try #require(response.json["writeResults"] as? [[String: Any]])
            #expect(
                results.map { $0["path"] as? String } == ["c/new", "c/existing", "c/existing", "c/replaced", "c/gone"])
            #expect(results.map { $0["version"] as? Int } == [1, 2, 3, 1, 0])
            let commitTime = try #require(response.json["commitTime"] as? String)
            #expect(results.allSatisfy { $0["updateTime"] as? String == commitTime })

            let existing = try server.request("GET", "/api/docs/c/existing")
            #expect(existing.version == 3)
            #expect(existing.json["updateTime"] as? String == commitTime)
            #expect(JSON.equal(existing.data, ["n": 5, "keep": "yes", "m": 2, "deep": ["x": 1]]))
            #expect(try server.request("GET", "/api/docs/c/new").version == 1)
        }
    }

    @Test(
        "one failing write aborts the whole commit and nothing is written",
        arguments: [
            (#"{"op":"set","path":"c/a","data":{},"precondition":{"version":7}}"#, 412, "FAILED_PRECONDITION"),
            (#"{"op":"set","path":"c/missing","data":{},"precondition":{"exists":true}}"#, 412, "FAILED_PRECONDITION"),
            (#"{"op":"set","path":"c/a","data":{},"precondition":{"exists":false}}"#, 412, "FAILED_PRECONDITION"),
            (#"{"op":"delete","path":"c/missing","precondition":{"exists":true}}"#, 412, "FAILED_PRECONDITION"),
            (#"{"op":"create","path":"c/a","data":{}}"#, 409, "ALREADY_EXISTS"),
            (#"{"op":"update","path":"c/missing","data":{"x":1}}"#, 404, "NOT_FOUND"),
            // Found by fuzz/CommitFuzz.swift: two spellings of one field path in one update.
            (#"{"op":"update","path":"c/a","data":{"x.y":1,"`x`.y":2}}"#, 400, "INVALID_ARGUMENT"),
            (#"{"op":"set","path":"c/big","data":{"s":"BIG"}}"#, 413, "DOCUMENT_TOO_LARGE"),
            (
                #"{"op":"update","path":"c/a","data":{},"transforms":[{"field":"n","increment":"1"}]}"#, 400,
                "INVALID_ARGUMENT"
            ),
        ])
    func atomicity(failing: String, status: Int, code: String) throws {
        try withTestKura { server in
            try server.put("c/a", ["n": 1])
            try server.put("c/b", ["n": 1])
            #expect(try server.cachedVersion("c/a") == 1)
            let failingWrite = failing.replacingOccurrences(of: "BIG", with: String(repeating: "x", count: 1 << 20))
            let body =
                #"{"writes":[{"op":"set","path":"c/a","data":{"n":2}},"#
                + #"{"op":"create","path":"c/fresh","data":{"n":1}},{"op":"delete","path":"c/b"},"# + failingWrite
                + #",{"op":"update","path":"c/a","data":{"after":true}}]}"#
            let response = try server.request("POST", "/api/commit", body: Array(body.utf8))
            #expect(response.status == status, "\(response)")
            #expect(response.errorCode == code)
            let a = try server.request("GET", "/api/docs/c/a")
            #expect(a.version == 1)
            #expect(JSON.equal(a.data, ["n": 1]))
            #expect(try server.request("GET", "/api/docs/c/b").version == 1)
            #expect(try server.request("GET", "/api/docs/c/fresh").status == 404)
            #expect(try server.request("GET", "/api/docs/c/missing").status == 404)
            #expect(try server.request("GET", "/api/docs/c").documentIDs == ["a", "b"])
        }
    }

    @Test("preconditions that hold let the commit through")
    func preconditionsHold() throws {
        try withTestKura { server in
            try server.put("c/a", ["n": 1])
            let response = try server.commit([
                ["op": "set", "path": "c/a", "data": ["n": 2], "precondition": ["version": 1]],
                ["op": "set", "path": "c/b", "data": ["n": 1], "precondition": ["exists": false]],
                ["op": "update", "path": "c/a", "data": ["m": 1], "precondition": ["exists": true]],
            ])
            #expect((response.json["writeResults"] as? [[String: Any]])?.map { $0["version"] as? Int } == [2, 1, 3])
        }
    }

    @Test("500 writes fit in one commit; 501 are 400 INVALID_ARGUMENT and write nothing")
    func writeLimit() throws {
        try withTestKura { server in
            func writes(_ count: Int, _ prefix: String) -> [[String: Any]] {
                (0..<count).map { ["op": "set", "path": "many/\(prefix)\($0)", "data": ["i": $0]] }
            }
            let tooMany = try server.request("POST", "/api/commit", json: ["writes": writes(501, "x")])
            #expect(tooMany.status == 400)
            #expect(tooMany.errorCode == "INVALID_ARGUMENT")
            #expect(
                try server.request("POST", "/api/query/count", json: ["collection": "many"]).json["count"] as? Int == 0)

            let most = try server.request("POST", "/api/commit", json: ["writes": writes(500, "y")])
            #expect(most.status == 200)
            #expect((most.json["writeResults"] as? [Any])?.count == 500)
            #expect(
                try server.request("POST", "/api/query/count", json: ["collection": "many"]).json["count"] as? Int
                    == 500)
        }
    }

    @Test(
        "malformed commits are 400",
        arguments: [
            (#"{"writes":[]}"#, "INVALID_ARGUMENT"),
            (#"{}"#, "INVALID_ARGUMENT"),
            (#"{"writes":[],"extra":1}"#, "INVALID_ARGUMENT"),
            (#"{"writes":{}}"#, "INVALID_ARGUMENT"),
            (#"{"writes":[{"op":"upsert","path":"c/a","data":{}}]}"#, "INVALID_ARGUMENT"),
            (#"{"writes":[{"path":"c/a","data":{}}]}"#, "INVALID_ARGUMENT"),
            (#"{"writes":[{"op":"set","data":{}}]}"#, "INVALID_ARGUMENT"),
            (#"{"writes":[{"op":"set","path":"c/a"}]}"#, "INVALID_ARGUMENT"),
            (#"{"writes":[{"op":"set","path":"c/a","data":{},"bogus":1}]}"#, "INVALID_ARGUMENT"),
            (
                #"{"writes":[{"op":"set","path":"c/a","data":{},"precondition":{"exists":true,"version":1}}]}"#,
                "INVALID_ARGUMENT"
            ),
            (#"{"writes":[{"op":"set","path":"c/a","data":{},"precondition":{"when":1}}]}"#, "INVALID_ARGUMENT"),
            (#"{"writes":[{"op":"set","path":"c/a","data":{},"transforms":[{"field":"n"}]}]}"#, "INVALID_ARGUMENT"),
            (
                #"{"writes":[{"op":"set","path":"c/a","data":{},"transforms":[{"field":"n","increment":1,"maximum":2}]}]}"#,
                "INVALID_ARGUMENT"
            ),
            (
                #"{"writes":[{"op":"set","path":"c/a","data":{},"transforms":[{"field":"n","square":1}]}]}"#,
                "INVALID_ARGUMENT"
            ),
            (
                #"{"writes":[{"op":"set","path":"c/a","data":{},"transforms":[{"field":"n","arrayUnion":1}]}]}"#,
                "INVALID_ARGUMENT"
            ),
            (#"{"writes":[{"op":"set","path":"c","data":{}}]}"#, "INVALID_PATH"),
            (#"{"writes":[{"op":"set","path":"c/__a__","data":{}}]}"#, "INVALID_PATH"),
            (#"{"writes":[{"op":"delete","path":"c/a/.."}]}"#, "INVALID_PATH"),
        ])
    func malformedCommit(body: String, code: String) throws {
        try withTestKura { server in
            let response = try server.request("POST", "/api/commit", body: Array(body.utf8))
            #expect(response.status == 400, "\(response)")
            #expect(response.errorCode == code, "\(response)")
            #expect(try server.request("GET", "/api/docs/c/a").status == 404)
        }
    }

    /// A transform applied to `{"n": 5, "tags": ["a", "b"], "m": {"x": 1}}` and the data it must leave.
    struct TransformCase: Sendable, CustomTestStringConvertible {
        let transform: String
        let expected: String
        var testDescription: String { transform }
    }

    static let transformCases: [TransformCase] = [
        .init(transform: #"{"field":"n","increment":2}"#, expected: #"{"n":7,"tags":["a","b"],"m":{"x":1}}"#),
        .init(transform: #"{"field":"n","increment":-0.5}"#, expected: #"{"n":4.5,"tags":["a","b"],"m":{"x":1}}"#),
        .init(transform: #"{"field":"new","increment":3}"#, expected: #"{"n":5,"tags":["a","b"],"m":{"x":1},"new":3}"#),
        .init(transform: #"{"field":"m.x","increment":1}"#, expected: #"{"n":5,"tags":["a","b"],"m":{"x":2}}"#),
        .init(transform: #"{"field":"n","maximum":9}"#, expected: #"{"n":9,"tags":["a","b"],"m":{"x":1}}"#),
        .init(transform: #"{"field":"n","maximum":1}"#, expected: #"{"n":5,"tags":["a","b"],"m":{"x":1}}"#),
        .init(transform: #"{"field":"n","minimum":1}"#, expected: #"{"n":1,"tags":["a","b"],"m":{"x":1}}"#),
        .init(transform: #"{"field":"n","minimum":9}"#, expected: #"{"n":5,"tags":["a","b"],"m":{"x":1}}"#),
        .init(
            transform: #"{"field":"tags","arrayUnion":["b","c"]}"#,
            expected: #"{"n":5,"tags":["a","b","c"],"m":{"x":1}}"#),
        .init(transform: #"{"field":"tags","arrayRemove":["a","z"]}"#, expected: #"{"n":5,"tags":["b"],"m":{"x":1}}"#),
        .init(
            transform: #"{"field":"other","arrayUnion":[1]}"#,
            expected: #"{"n":5,"tags":["a","b"],"m":{"x":1},"other":[1]}"#),
        .init(transform: #"{"field":"m","delete":true}"#, expected: #"{"n":5,"tags":["a","b"]}"#),
        .init(transform: #"{"field":"m.x","delete":true}"#, expected: #"{"n":5,"tags":["a","b"],"m":{}}"#),
    ]

    @Test("field transforms", arguments: transformCases)
    func transform(_ c: TransformCase) throws {
        try withTestKura { server in
            try server.put("t/doc", ["n": 5, "tags": ["a", "b"], "m": ["x": 1]])
            #expect(try server.cachedVersion("t/doc") == 1)
            let body = #"{"writes":[{"op":"update","path":"t/doc","data":{},"transforms":["# + c.transform + "]}]}"
            let response = try server.request("POST", "/api/commit", body: Array(body.utf8))
            try #require(response.status == 200, "\(response)")
            let document = try server.request("GET", "/api/docs/t/doc")
            #expect(document.version == 2)
            let expected = try JSONSerialization.jsonObject(with: Data(c.expected.utf8))
            #expect(JSON.equal(document.data, expected), "got \(document.body)")
        }
    }

    @Test("serverTimestamp is the commit time; transforms run in order after the operation")
    func serverTimestampAndOrder() throws {
        try withTestKura { server in
            let response = try server.commit([
                [
                    "op": "set", "path": "t/s", "data": ["n": 1],
                    "transforms": [
                        ["field": "at", "serverTimestamp": true], ["field": "n", "increment": 10],
                        ["field": "n", "maximum": 20], ["field": "n", "increment": 1],
                    ],
                ]
            ])
            let commitTime = try #require(response.json["commitTime"] as? String)
            let document = try server.request("GET", "/api/docs/t/s")
            #expect(JSON.equal(document.data, ["n": 21, "at": commitTime]))
            #expect(document.version == 1)
        }
    }
}
