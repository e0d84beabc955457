import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// `or`/`and` filters and inequalities on several fields over HTTP (queries, counts, listen targets, the rules'
/// `list` filtering, the limits), and `POST /api/query/aggregate`.
@Suite struct QueryCompositeTests {
    static func eq(_ field: String, _ value: Any) -> [String: Any] { ["field": field, "op": "==", "value": value] }

    static func items(_ conditions: [[String: Any]], _ extra: [String: Any] = [:]) -> [String: Any] {
        var query: [String: Any] = ["collection": "items", "where": conditions]
        for (key, value) in extra { query[key] = value }
        return query
    }

    static func message(_ response: HTTPResponse) -> String {
        (response.json["error"] as? [String: Any])?["message"] as? String ?? ""
    }

    static func count(_ server: TestKura, _ query: [String: Any]) throws -> Int? {
        try server.request("POST", "/api/query/count", json: query).json["count"] as? Int
    }

    @Test("or and and filters, nested, in queries and counts; a missing field matches no filter on it")
    func orAndFilters() throws {
        try withTestKura { server in
            try DocumentQueryTests.seeded(server)
            let nested = Self.items([
                [
                    "or": [
                        Self.eq("n", 1),
                        ["and": [Self.eq("odd", false), ["field": "s", "op": ">=", "value": "c"]]],
                    ]
                ]
            ])
            // The inequality on s (inside the or) orders the results by s.
            let response = try server.request("POST", "/api/query", json: nested)
            #expect(response.status == 200, "\(response)")
            #expect(response.documentIDs == ["a", "d"])
            #expect(try Self.count(server, nested) == 2)
            let missing = Self.items([["or": [Self.eq("m.k", 7), Self.eq("n", 2)]]])
            #expect(try server.request("POST", "/api/query", json: missing).documentIDs == ["b", "e"])
            let notEqual = Self.items([["or": [["field": "n", "op": "!=", "value": 3], Self.eq("m.k", 7)]]])
            #expect(try server.request("POST", "/api/query", json: notEqual).documentIDs == ["a", "b", "d"])
            // Top-level entries are AND-ed; `and` at the top level is the same as listing its filters.
            let anded = Self.items([["and": [Self.eq("odd", true)]], ["or": [Self.eq("n", 3), Self.eq("n", 2)]]])
            #expect(try server.request("POST", "/api/query", json: anded).documentIDs == ["c"])
        }
    }

    @Test("inequality filters on several fields: ordered after the orderBy fields, by field name")
    func severalInequalities() throws {
        try withTestKura { server in
            try DocumentQueryTests.seeded(server)
            let ranges = Self.items([
                ["field": "s", "op": "<", "value": "d"], ["field": "n", "op": ">", "value": 1],
            ])
            let response = try server.request("POST", "/api/query", json: ranges)
            #expect(response.status == 200, "\(response)")
            #expect(response.documentIDs == ["b", "c"])
            var ordered = ranges
            ordered["orderBy"] = [["field": "odd", "direction": "desc"]]
            #expect(try server.request("POST", "/api/query", json: ordered).documentIDs == ["c", "b"])
            #expect(try Self.count(server, ranges) == 2)
        }
    }

    @Test(
        "malformed composite filters are 400 INVALID_QUERY",
        arguments: [
            #"{"collection":"items","where":[{"or":[]}]}"#,
            #"{"collection":"items","where":[{"or":5}]}"#,
            #"{"collection":"items","where":[{"and":[{"or":[{"field":"n"}]}]}]}"#,
            #"{"collection":"items","where":[{"or":[{"field":"n","op":"==","value":1}],"and":[]}]}"#,
            #"{"collection":"items","where":[{"or":[{"field":"n","op":"not-in","value":[1]},{"field":"s","op":"==","value":"a"}]}]}"#,
        ])
    func malformed(_ body: String) throws {
        try withTestKura { server in
            for endpoint in ["/api/query", "/api/query/count"] {
                let response = try server.request("POST", endpoint, body: Array(body.utf8))
                expectError(response, 400, .invalidQuery)
            }
        }
    }

    @Test("query.maxFilterDisjunctions bounds the disjunctive normal form; composite values count toward the bytes")
    func limits() throws {
        try withTestKura(configure: {
            try $0.set("query.maxFilterDisjunctions", "4")
            try $0.set("query.maxFilterBytes", "40")
        }) { server in
            let five = Self.items([["or": (1...5).map { Self.eq("n", $0) }]])
            // An `in` of 3 values AND an `or` of 2 is 6 conjunctions.
            let product = Self.items([
                ["field": "n", "op": "in", "value": [1, 2, 3]], ["or": [Self.eq("a", 1), Self.eq("b", 2)]],
            ])
            for query in [five, product] {
                for endpoint in ["/api/query", "/api/query/count"] {
                    let response = try server.request("POST", endpoint, json: query, auth: .none)
                    expectError(response, 400, .invalidArgument)
                    #expect(Self.message(response).contains("query.maxFilterDisjunctions"), "\(response)")
                }
                let listen = try server.listen("?query=\(queryParameter(query))")
                #expect(listen.status == 400)
                #expect((try listen.errorBody()["error"] as? [String: Any])?["code"] as? String == "INVALID_ARGUMENT")
            }
            let four = Self.items([["or": (1...4).map { Self.eq("n", $0) }]])
            #expect(try server.request("POST", "/api/query", json: four).status == 200)
            let big = Self.items([
                ["or": [Self.eq("s", String(repeating: "x", count: 20)), Self.eq("s", "abcdefghijklmnopqrst")]]
            ])
            let response = try server.request("POST", "/api/query", json: big)
            expectError(response, 400, .invalidArgument)
            #expect(Self.message(response).contains("query.maxFilterBytes"), "\(response)")
        }
    }

    @Test("a listen target with an or filter receives a document entering through either branch")
    func listenTarget() throws {
        try withTestKura { server in
            try server.put("todos/a", ["done": false, "rank": 1])
            try server.put("todos/b", ["done": true, "rank": 2, "starred": false])
            let stream = try server.listen()
            let connection = try #require(try stream.expect("connected").json["connectionId"] as? String)
            let query =
                [
                    "collection": "todos", "where": [["or": [Self.eq("done", false), Self.eq("starred", true)]]],
                    "orderBy": [["field": "rank"]],
                ] as [String: Any]
            let added = try server.listenPost(connection, ["add": [["id": "open", "query": query]]])
            #expect(added.status == 200, "\(added)")
            #expect(ListenTests.documents(try stream.expect("snapshot")).map { $0["id"] as? String } == ["a"])
            try server.put("todos/b", ["done": true, "rank": 2, "starred": true])
            #expect(ListenTests.kinds(try stream.expect("changes")) == ["added b"])
            try server.put("todos/a", ["done": true, "rank": 1])
            #expect(ListenTests.kinds(try stream.expect("changes")) == ["removed a"])
            // A second target with another or-filter does not share the first one's view.
            let other =
                [
                    "collection": "todos", "where": [["or": [Self.eq("done", true), Self.eq("starred", true)]]],
                    "orderBy": [["field": "rank"]],
                ] as [String: Any]
            _ = try server.listenPost(connection, ["add": [["id": "done", "query": other]]])
            let snapshot = try stream.expect("snapshot")
            #expect(ListenTests.documents(snapshot).map { $0["id"] as? String } == ["a", "b"])
        }
    }

    static let ownerRules = """
        rules_version = '1';
        match /items/{id} {
          allow get, list: if request.auth != null && resource.data.owner == request.auth.uid;
        }
        """

    @Test("the rules filter or queries and aggregations: only documents the caller may list are counted")
    func rulesFilter() throws {
        try withRulesKura(rules: Self.ownerRules) { server in
            let a = try server.signUp("a@example.com")
            let b = try server.signUp("b@example.com")
            var writes: [[String: Any]] = []
            for i in 0..<12 {
                let data: [String: Any] = ["owner": i % 3 == 0 ? b.uid : a.uid, "n": i, "even": i % 2 == 0]
                writes.append(["op": "set", "path": "items/i\(String(format: "%02d", i))", "data": data])
            }
            try server.commit(writes)
            let query = Self.items([["or": [Self.eq("n", 3), Self.eq("even", true)]]])
            // even: 0 2 4 6 8 10, or n == 3; b owns 0 3 6 9.
            #expect(
                try server.request("POST", "/api/query", json: query, as: a).documentIDs == [
                    "i02", "i04", "i08", "i10",
                ])
            #expect(try server.request("POST", "/api/query", json: query, as: b).documentIDs == ["i00", "i03", "i06"])
            var aggregate = query
            aggregate["aggregate"] = ["c": ["count": [:]], "s": ["sum": "n"], "m": ["average": "n"]]
            let mine = try server.request("POST", "/api/query/aggregate", json: aggregate, as: a)
            #expect(mine.status == 200, "\(mine)")
            let data = mine.json["data"] as? [String: Any]
            #expect(data?["c"] as? Int == 4)
            #expect(data?["s"] as? Int == 24)
            #expect(data?["m"] as? Double == 6)
            let anonymous = try server.request("POST", "/api/query/aggregate", json: aggregate, as: nil)
            #expect(anonymous.status == 200, "\(anonymous)")
            #expect(anonymous.body.contains(#""c":0"#) && anonymous.body.contains(#""m":null"#), "\(anonymous)")
        }
    }

    @Test("aggregations: count, integer and double sums, overflow to a double, averages, limits")
    func aggregations() throws {
        try withTestKura { server in
            try DocumentQueryTests.seeded(server)
            func run(_ body: String) throws -> String {
                let response = try server.request("POST", "/api/query/aggregate", body: Array(body.utf8))
                #expect(response.status == 200, "\(response)")
                return response.body
            }
            // n: 1, 2, 3, 4.5 and one document without it; s holds strings only.
            #expect(
                try run(
                    #"{"collection":"items","aggregate":{"c":{"count":{}},"total":{"sum":"n"},"mean":{"average":"n"},"#
                        + #""text":{"sum":"s"},"none":{"average":"s"}}}"#)
                    == #"{"data":{"c":5,"total":10.5,"mean":2.625,"text":0,"none":null}}"#)
            #expect(
                try run(
                    #"{"collection":"items","where":[{"field":"n","op":"in","value":[1,2,3]}],"#
                        + #""aggregate":{"total":{"sum":"n"},"mean":{"average":"n"}}}"#)
                    == #"{"data":{"total":6,"mean":2.0}}"#)
            #expect(
                try run(#"{"collection":"items","orderBy":[{"field":"n"}],"limit":2,"aggregate":{"t":{"sum":"n"}}}"#)
                    == #"{"data":{"t":3}}"#)
            #expect(
                try run(
                    #"{"collection":"items","where":[{"or":[{"field":"n","op":"==","value":1},"#
                        + #"{"field":"m.k","op":"==","value":7}]}],"aggregate":{"c":{"count":{}}}}"#)
                    == #"{"data":{"c":2}}"#)
            try server.put("big/a", ["v": Int64.max])
            try server.put("big/b", ["v": 1])
            #expect(
                try run(#"{"collection":"big","aggregate":{"s":{"sum":"v"},"c":{"count":{}}}}"#)
                    == #"{"data":{"s":9.223372036854776e+18,"c":2}}"#)
            #expect(
                try run(#"{"collection":"nothing","aggregate":{"s":{"sum":"v"},"m":{"average":"v"}}}"#)
                    == #"{"data":{"s":0,"m":null}}"#)
        }
    }

    @Test(
        "malformed aggregations are 400 INVALID_QUERY",
        arguments: [
            #"{"collection":"items"}"#,
            #"{"collection":"items","aggregate":{}}"#,
            #"{"collection":"items","aggregate":[]}"#,
            #"{"collection":"items","aggregate":{"1x":{"count":{}}}}"#,
            #"{"collection":"items","aggregate":{"a-b":{"count":{}}}}"#,
            #"{"collection":"items","aggregate":{"a":{"sum":5}}}"#,
            #"{"collection":"items","aggregate":{"a":{"median":"n"}}}"#,
            #"{"collection":"items","aggregate":{"a":{"count":{},"sum":"n"}}}"#,
            #"{"collection":"items","aggregate":{"a":{"count":1}}}"#,
            #"{"collection":"items","aggregate":{"a":{"sum":"id"}}}"#,
            #"{"collection":"items","aggregate":{"a":{"sum":"a..b"}}}"#,
            #"{"collection":"items","bogus":1,"aggregate":{"a":{"count":{}}}}"#,
            #"{"collection":"items","where":[{"or":[]}],"aggregate":{"a":{"count":{}}}}"#,
            #"[]"#,
        ])
    func malformedAggregation(_ body: String) throws {
        try withTestKura { server in
            let response = try server.request("POST", "/api/query/aggregate", body: Array(body.utf8))
            expectError(response, 400, .invalidQuery)
        }
    }

    @Test("more aliases than query.maxAggregations is 400 INVALID_ARGUMENT; the work budget applies")
    func aggregationLimits() throws {
        try withTestKura { server in
            let six = Dictionary(uniqueKeysWithValues: (0..<6).map { ("a\($0)", ["count": [:]] as [String: Any]) })
            let response = try server.request(
                "POST", "/api/query/aggregate", json: ["collection": "items", "aggregate": six])
            expectError(response, 400, .invalidArgument)
            #expect(Self.message(response).contains("query.maxAggregations"), "\(response)")
        }
        try withRulesKura(rules: Self.ownerRules, configure: { try $0.set("query.maxWork", "300") }) { server in
            try QueryLimitsTests.load(server, count: 400)
            let sum: [String: Any] = ["collection": "items", "aggregate": ["s": ["sum": "n"]]]
            let refused = try server.request("POST", "/api/query/aggregate", json: sum, auth: .none)
            expectError(refused, 429, .resourceExhausted)
            let admin = try server.request("POST", "/api/query/aggregate", json: sum)
            #expect(admin.body == #"{"data":{"s":79800}}"#, "\(admin)")
        }
    }
}
