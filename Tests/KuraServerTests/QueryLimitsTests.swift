import Foundation
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// What one query may ask for and cost (`query.*`, docs/api.md "Query limits"): disjunction and filter-value
/// sizes are 400 `INVALID_ARGUMENT` naming their setting, on queries, counts and listen targets alike; a query of a
/// caller other than the administrator past `query.maxWork` is 429 `RESOURCE_EXHAUSTED`; and a caller the rules
/// refuse learns nothing from a missing-index refusal.
@Suite struct QueryLimitsTests {
    /// Every document's `list` is decided by its `owner`; nobody but the administrator can read `owner: "x"`.
    static let rules = """
        rules_version = '1';
        match /items/{id} {
          allow get, list: if request.auth != null && resource.data.owner == request.auth.uid;
        }
        """

    /// `count` documents `items/d<n>` owned by `x`, with `n`, `tags` and `cat` (2 for the three lowest `n`, else 1).
    static func load(_ server: TestKura, count: Int) throws {
        for start in stride(from: 0, to: count, by: 500) {
            let writes: [[String: Any]] = (start..<min(start + 500, count)).map { i in
                [
                    "op": "set", "path": "items/d\(i)",
                    "data": ["owner": "x", "n": i, "cat": i < 3 ? 2 : 1, "tags": [i, i + 1]],
                ]
            }
            try server.commit(writes)
        }
    }

    static func inQuery(_ values: [Any]) -> [String: Any] {
        ["collection": "items", "where": [["field": "tags", "op": "in", "value": values]]]
    }

    static func message(_ response: HTTPResponse) -> String {
        (response.json["error"] as? [String: Any])?["message"] as? String ?? ""
    }

    @Test("in, not-in and array-contains-any take at most query.maxDisjunctionValues values")
    func disjunctionValues() throws {
        try withTestKura(configure: { try $0.set("query.maxDisjunctionValues", "3") }) { server in
            for op in ["in", "not-in", "array-contains-any"] {
                let query: [String: Any] = [
                    "collection": "items", "where": [["field": "tags", "op": op, "value": [1, 2, 3, 4]]],
                ]
                for target in ["/api/query", "/api/query/count"] {
                    let response = try server.request("POST", target, json: query, auth: .none)
                    expectError(response, 400, .invalidArgument)
                    #expect(Self.message(response).contains("query.maxDisjunctionValues"), "\(response)")
                }
                var three = query
                three["where"] = [["field": "tags", "op": op, "value": [1, 2, 3]]]
                let allowed = try server.request("POST", "/api/query", json: three)
                #expect(allowed.status == 200, "\(allowed)")
            }
        }
        try withTestKura { server in
            let response = try server.request("POST", "/api/query", json: Self.inQuery(Array(0..<31)), auth: .none)
            expectError(response, 400, .invalidArgument)
            #expect(Self.message(response).contains("at most 30"), "\(response)")
        }
    }

    @Test("a filter past a limit is answered before a mistake in the members after 'where'")
    func filterLimitsComeFirst() throws {
        try withTestKura(configure: { try $0.set("query.maxDisjunctionValues", "3") }) { server in
            var query = Self.inQuery([1, 2, 3, 4])
            query["orderBy"] = 5
            query["limit"] = 0
            let response = try server.request("POST", "/api/query", json: query, auth: .none)
            expectError(response, 400, .invalidArgument)
            #expect(Self.message(response).contains("query.maxDisjunctionValues"), "\(response)")
            query["where"] = nil
            expectError(try server.request("POST", "/api/query", json: query, auth: .none), 400, .invalidQuery)
        }
    }

    @Test("a filter value past query.maxFilterValueBytes, or all of them past query.maxFilterBytes, is refused")
    func filterValueBytes() throws {
        try withTestKura { server in
            // The probe, in small: arrays of integers as `in` values.
            let big = Self.inQuery([Array(0..<1000)])
            let response = try server.request("POST", "/api/query", json: big, auth: .none)
            expectError(response, 400, .invalidArgument)
            #expect(Self.message(response).contains("query.maxFilterValueBytes"), "\(response)")
            let equal: [String: Any] = [
                "collection": "items",
                "where": [["field": "name", "op": "==", "value": String(repeating: "a", count: 2000)]],
            ]
            expectError(
                try server.request("POST", "/api/query/count", json: equal, auth: .none), 400, .invalidArgument)
            // 30 values of about 1,000 bytes each: each fits, together they do not.
            let many = Self.inQuery((0..<30).map { _ in String(repeating: "b", count: 1000) })
            let total = try server.request("POST", "/api/query", json: many, auth: .none)
            expectError(total, 400, .invalidArgument)
            #expect(Self.message(total).contains("query.maxFilterBytes"), "\(total)")
            // Listen targets, in the URL and added later, are held to the same limits.
            let listen = try server.listen("?query=\(queryParameter(big))", auth: .none)
            #expect(listen.status == 400)
            let stream = try server.listen(auth: .none)
            let connection = try #require(try stream.expect("connected").json["connectionId"] as? String)
            let added = try server.listenPost(connection, ["add": [["id": "t", "query": many]]], auth: .none)
            expectError(added, 400, .invalidArgument)
        }
        try withTestKura(configure: { try $0.set("query.maxFilterValueBytes", "100000") }) { server in
            let big = Self.inQuery([Array(0..<1000)])
            let response = try server.request("POST", "/api/query", json: big)
            #expect(response.status == 200, "\(response)")
        }
    }

    @Test("a query that would examine more than query.maxWork pays for is 429 RESOURCE_EXHAUSTED")
    func workBudget() throws {
        try withRulesKura(rules: Self.rules, configure: { try $0.set("query.maxWork", "300") }) { server in
            try Self.load(server, count: 400)
            let noMatch = Self.inQuery([[-1, -2], [-3, -4]])
            // Examined in the store: 400 rows that match nothing, at 1 unit each.
            for target in ["/api/query", "/api/query/count"] {
                let response = try server.request("POST", target, json: noMatch, auth: .none)
                expectError(response, 429, .resourceExhausted)
                #expect(Self.message(response).contains("query.maxWork"), "\(response)")
            }
            // Examined by the rules: 400 matches, each evaluated (2 units more) and refused.
            let all: [String: Any] = ["collection": "items", "limit": 10]
            expectError(try server.request("POST", "/api/query", json: all, auth: .none), 429, .resourceExhausted)
            // The administrator is not bounded.
            #expect(try server.request("POST", "/api/query", json: noMatch).status == 200)
        }
        try withRulesKura(rules: Self.rules) { server in
            try Self.load(server, count: 400)
            let response = try server.request("POST", "/api/query", json: Self.inQuery([[-1, -2]]), auth: .none)
            #expect(response.status == 200 && response.documentIDs.isEmpty, "\(response)")
        }
    }

    @Test("a caller the rules refuse is not told that more than indexes.maxScanRows documents exist")
    func missingIndexHidden() throws {
        try withRulesKura(rules: Self.rules, configure: { try $0.set("indexes.maxScanRows", "5") }) { server in
            try Self.load(server, count: 60)
            // `cat in [2, 5] order by n desc`: a composite index would serve it; without one, the walk down `n`
            // passes 57 documents before the first match.
            let query: [String: Any] = [
                "collection": "items", "where": [["field": "cat", "op": "in", "value": [2, 5]]],
                "orderBy": [["field": "n", "direction": "desc"]], "limit": 2,
            ]
            let admin = try server.request("POST", "/api/query", json: query)
            expectError(admin, 400, .failedPrecondition)
            let user = try server.signUp("reader@example.com")
            for session in [nil, user] {
                for target in ["/api/query", "/api/query/count"] {
                    var body = query
                    if target.hasSuffix("count") { body["limit"] = nil }
                    let response = try server.request("POST", target, json: body, as: session)
                    expectError(response, 403, .permissionDenied)
                    #expect(!Self.message(response).contains("maxScanRows"), "\(response)")
                    #expect(!Self.message(response).contains("index"), "\(response)")
                }
            }
        }
    }
}
