import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// Listing collections (`GET /api/docs/{collection}`), `POST /api/query` and `POST /api/query/count`.
@Suite struct DocumentQueryTests {
    /// `items/a…e` (e has no `n`) plus a document in a subcollection, which queries on `items` must not see.
    static func seeded(_ server: TestKura) throws {
        try server.commit([
            ["op": "set", "path": "items/a", "data": ["n": 1, "tags": ["x", "y"], "s": "apple", "odd": true]],
            ["op": "set", "path": "items/b", "data": ["n": 2, "tags": ["y"], "s": "banana", "odd": false]],
            ["op": "set", "path": "items/c", "data": ["n": 3, "tags": ["z"], "s": "cherry", "odd": true]],
            ["op": "set", "path": "items/d", "data": ["n": 4.5, "tags": [], "s": "date", "odd": false]],
            ["op": "set", "path": "items/e", "data": ["s": "elder", "m": ["k": 7]]],
            ["op": "set", "path": "items/a/items/sub", "data": ["n": 1]],
            ["op": "set", "path": "other/x", "data": ["n": 1]],
        ])
    }

    /// One `where` clause against the seeded items, and the IDs it must match (in any order).
    struct OperatorCase: Sendable, CustomTestStringConvertible {
        let field: String
        let op: String
        let value: @Sendable () -> Any
        let expected: [String]
        var testDescription: String { "\(field) \(op) \(value())" }
        init(_ field: String, _ op: String, _ value: @autoclosure @escaping @Sendable () -> Any, _ expected: [String]) {
            self.field = field
            self.op = op
            self.value = value
            self.expected = expected
        }
    }

    static let operatorCases: [OperatorCase] = [
        OperatorCase("n", "==", 2, ["b"]),
        OperatorCase("n", "==", 2.0, ["b"]),
        OperatorCase("n", "==", "2", []),  // types never compare equal across string and number
        OperatorCase("n", "!=", 2, ["a", "c", "d"]),  // a missing field matches no filter on it
        OperatorCase("n", "<", 3, ["a", "b"]),
        OperatorCase("n", "<=", 3, ["a", "b", "c"]),
        OperatorCase("n", ">", 2, ["c", "d"]),
        OperatorCase("n", ">=", 4.5, ["d"]),
        OperatorCase("n", "in", [1, 4.5, 99], ["a", "d"]),
        OperatorCase("n", "not-in", [1, 4.5], ["b", "c"]),
        OperatorCase("tags", "array-contains", "y", ["a", "b"]),
        OperatorCase("tags", "array-contains-any", ["x", "z", "q"], ["a", "c"]),
        OperatorCase("s", ">=", "c", ["c", "d", "e"]),
        OperatorCase("s", "<", "banana", ["a"]),
        OperatorCase("odd", "==", true, ["a", "c"]),
        OperatorCase("m.k", "==", 7, ["e"]),
        OperatorCase("m", "==", ["k": 7], ["e"]),
        OperatorCase("id", "==", "c", ["c"]),
        OperatorCase("id", "in", ["b", "e", "zz"], ["b", "e"]),
        OperatorCase("__name__", ">", "c", ["d", "e"]),
    ]

    @Test("every where operator", arguments: operatorCases)
    func whereOperator(_ c: OperatorCase) throws {
        try withTestKura { server in
            try Self.seeded(server)
            let query: [String: Any] = [
                "collection": "items", "where": [["field": c.field, "op": c.op, "value": c.value()]],
            ]
            let response = try server.request("POST", "/api/query", json: query)
            try #require(response.status == 200, "\(response)")
            #expect(response.documentIDs.sorted() == c.expected)
            let count = try server.request("POST", "/api/query/count", json: query)
            #expect(count.status == 200)
            #expect(count.json["count"] as? Int == c.expected.count)
        }
    }

    @Test("orderBy, limit, cursors, select, collection groups and combined filters")
    func queryShapes() throws {
        try withTestKura { server in
            try Self.seeded(server)
            func ids(_ query: [String: Any]) throws -> [String] {
                let response = try server.request("POST", "/api/query", json: query)
                guard response.status == 200 else { throw UnexpectedResponse(response) }
                return response.documentIDs
            }
            let byN: [String: Any] = ["collection": "items", "orderBy": [["field": "n", "direction": "desc"]]]
            // Ordering on a field leaves out the documents without it (Firestore).
            #expect(try ids(byN) == ["d", "c", "b", "a"])
            #expect(try ids(byN.merging(["limit": 2]) { $1 }) == ["d", "c"])
            let ascending: [String: Any] = ["collection": "items", "orderBy": [["field": "n"]]]
            #expect(try ids(ascending.merging(["startAt": [2]]) { $1 }) == ["b", "c", "d"])
            #expect(try ids(ascending.merging(["startAfter": [2]]) { $1 }) == ["c", "d"])
            #expect(try ids(ascending.merging(["endAt": [3]]) { $1 }) == ["a", "b", "c"])
            #expect(try ids(ascending.merging(["endBefore": [3], "startAt": [2]]) { $1 }) == ["b"])
            #expect(
                try ids(["collection": "items", "orderBy": [["field": "s", "direction": "descending"]]])
                    == ["e", "d", "c", "b", "a"])
            #expect(try ids(["collection": "items"]) == ["a", "b", "c", "d", "e"])  // by ID by default
            #expect(try ids(["collectionGroup": "items"]).sorted() == ["a", "b", "c", "d", "e", "sub"])
            #expect(try ids(["collection": "items/a/items"]) == ["sub"])
            #expect(
                try ids([
                    "collection": "items",
                    "where": [["field": "odd", "op": "==", "value": false], ["field": "n", "op": ">", "value": 0]],
                ]) == ["b", "d"])

            let selected = try server.request(
                "POST", "/api/query", json: ["collection": "items", "select": ["s", "m.k"], "limit": 5])
            let documents = try #require(selected.json["documents"] as? [[String: Any]])
            #expect(documents.count == 5)
            #expect(JSON.equal(documents[0]["data"], ["s": "apple"]))
            #expect(JSON.equal(documents[4]["data"], ["s": "elder", "m": ["k": 7]]))
            #expect(documents[0]["version"] as? Int == 1)

            let count = try server.request(
                "POST", "/api/query/count",
                json: ["collection": "items", "where": [["field": "n", "op": ">", "value": 1]]])
            #expect(count.json["count"] as? Int == 3)
            let limited = try server.request("POST", "/api/query/count", json: ["collection": "items", "limit": 2])
            #expect(limited.json["count"] as? Int == 2)
            let none = try server.request("POST", "/api/query/count", json: ["collection": "empty"])
            #expect(none.status == 200)
            #expect(none.json["count"] as? Int == 0)
        }
    }

    // The malformed field paths (`a..b`, ""): FieldPath.init throws INVALID_ARGUMENT, which a query answers as the
    // INVALID_QUERY every query mistake is documented as (QueryField(queryName:)).
    @Test(
        "malformed queries are 400 INVALID_QUERY (for queries and counts)",
        arguments: [
            #"{"collection":"items","bogus":1}"#,
            #"{"collection":"items","where":[{"field":"n","op":"~=","value":1}]}"#,
            #"{"collection":"items","where":[{"field":"n","op":"in","value":5}]}"#,
            #"{"collection":"items","where":[{"field":"n","op":"in","value":[]}]}"#,
            #"{"collection":"items","where":[{"field":"n","op":"=="}]}"#,
            #"{"collection":"items","where":[{"op":"==","value":1}]}"#,
            #"{"collection":"items","where":[{"field":"n","op":"==","value":1,"extra":true}]}"#,
            #"{"collection":"items","where":{"field":"n"}}"#,
            #"{"collection":"items","where":[5]}"#,
            #"{"collection":"items","where":[{"or":[]}]}"#,
            #"{"collection":"items","where":[{"and":[{"field":"n","op":"in","value":[]}]}]}"#,
            #"{"collection":"items","where":[{"or":[{"field":"a..b","op":"==","value":1}]}]}"#,
            #"{"collection":"items","where":[{"field":"id","op":"==","value":5}]}"#,
            #"{"collection":"items","where":[{"field":"createTime","op":">","value":"yesterday"}]}"#,
            #"{"collection":"items","orderBy":[{"field":"n","direction":"up"}]}"#,
            #"{"collection":"items","orderBy":[{"field":"n"},{"field":"n"}]}"#,
            #"{"collection":"items","orderBy":["n"]}"#,
            #"{"collection":"items","limit":0}"#,
            #"{"collection":"items","limit":-1}"#,
            #"{"collection":"items","limit":1001}"#,
            #"{"collection":"items","limit":"ten"}"#,
            #"{"collection":"items","limit":1.5}"#,
            #"{"collection":"items","orderBy":[{"field":"n"}],"startAt":[1],"startAfter":[1]}"#,
            #"{"collection":"items","orderBy":[{"field":"n"}],"startAt":[1,2,3]}"#,
            #"{"collection":"items","select":[1]}"#,
            #"{"collection":"items","select":["a..b"]}"#,
            #"{"collection":"items","where":[{"field":"a..b","op":"==","value":1}]}"#,
            #"{"collection":"items","orderBy":[{"field":""}]}"#,
            #"{"collection":"items","pageToken":"zz"}"#,
            #"{"collection":"items","pageToken":"0a1b"}"#,
            #"{"collection":5}"#,
            #"{}"#,
            #"{"collection":"items","collectionGroup":"items"}"#,
            #"[]"#,
        ])
    func invalidQuery(_ body: String) throws {
        try withTestKura { server in
            try Self.seeded(server)
            for endpoint in ["/api/query", "/api/query/count"] {
                let response = try server.request("POST", endpoint, body: Array(body.utf8))
                // A page token means nothing to a count, so a bad one is not an error there.
                if endpoint.hasSuffix("count") && body.contains("pageToken") { continue }
                #expect(response.status == 400, "\(endpoint): \(response)")
                #expect(response.errorCode == "INVALID_QUERY", "\(endpoint): \(response)")
            }
        }
    }

    @Test(
        "a query on a document path or a reserved collection ID is 400 INVALID_PATH",
        arguments: [
            ["collection": "items/a"], ["collection": "items//a/b"], ["collection": "__items__"],
            ["collectionGroup": "__x__"], ["collectionGroup": "a/b"],
        ])
    func queryOnBadPath(_ query: [String: String]) throws {
        try withTestKura { server in
            for endpoint in ["/api/query", "/api/query/count"] {
                let response = try server.request("POST", endpoint, json: query)
                #expect(response.status == 400, "\(endpoint): \(response)")
                #expect(response.errorCode == "INVALID_PATH", "\(endpoint): \(response)")
            }
        }
    }

    /// Follows `nextPageToken` until it is null; returns each page's IDs.
    static func pages(_ server: TestKura, _ firstTarget: String, maxPages: Int = 100) throws -> [[String]] {
        var pages: [[String]] = []
        var target = firstTarget
        while pages.count < maxPages {
            let response = try server.request("GET", target)
            guard response.status == 200 else { throw UnexpectedResponse(response) }
            pages.append(response.documentIDs)
            guard let token = response.nextPageToken else { return pages }
            let escaped = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token
            target = firstTarget + "&pageToken=" + escaped
        }
        Issue.record("more than \(maxPages) pages")
        return pages
    }

    @Test(
        "listing a collection page by page returns every document exactly once, in order",
        arguments: ["", "&orderBy=n", "&orderBy=n%20desc", "&orderBy=n+desc,id", "&orderBy=s,n+desc"])
    func listPages(_ orderBy: String) throws {
        try withTestKura { server in
            // 25 documents with many ties on n, so that pages must break ties by path.
            var writes: [[String: Any]] = []
            for i in 0..<25 {
                writes.append([
                    "op": "set", "path": "things/t\(String(format: "%02d", (i * 7) % 25))",
                    "data": ["n": i % 4, "s": "v\(i % 3)"],
                ])
            }
            writes.append(["op": "set", "path": "things/t00/things/nested", "data": ["n": 0, "s": "v0"]])
            try server.commit(writes)

            let pages = try Self.pages(server, "/api/docs/things?limit=7" + orderBy)
            let ids = pages.flatMap { $0 }
            #expect(ids.count == 25, "pages: \(pages)")
            #expect(Set(ids).count == 25, "duplicates across pages: \(pages)")
            #expect(pages.dropLast().allSatisfy { $0.count == 7 })

            // The same order as one big page.
            let whole = try server.request("GET", "/api/docs/things?limit=100" + orderBy)
            #expect(whole.status == 200)
            #expect(whole.documentIDs == ids)
            #expect(whole.json["nextPageToken"] is NSNull)
            if orderBy.isEmpty { #expect(ids == ids.sorted()) }
        }
    }

    @Test("listing: defaults, empty and missing collections, subcollections")
    func listBasics() throws {
        try withTestKura(configure: { try $0.set("docs.defaultPageSize", "3") }) { server in
            try Self.seeded(server)
            let first = try server.request("GET", "/api/docs/items")
            #expect(first.status == 200)
            #expect(first.documentIDs == ["a", "b", "c"])
            #expect(first.nextPageToken != nil)
            let empty = try server.request("GET", "/api/docs/nothing")
            #expect(empty.status == 200)
            #expect(empty.documentIDs.isEmpty)
            #expect(empty.json["nextPageToken"] is NSNull)
            #expect(try server.request("GET", "/api/docs/items/a/items").documentIDs == ["sub"])
            let documents = try #require(first.json["documents"] as? [[String: Any]])
            #expect(documents[0]["path"] as? String == "items/a")
            #expect(JSON.equal(documents[0]["data"], ["n": 1, "tags": ["x", "y"], "s": "apple", "odd": true]))
        }
    }

    // `orderBy=a..b` fails today for the same reason as in `invalidQuery` (INVALID_ARGUMENT from FieldPath).
    @Test(
        "bad list parameters are 400 INVALID_QUERY",
        arguments: [
            "limit=abc", "limit=0", "limit=-2", "limit=1001", "orderBy=n%20sideways", "orderBy=n%20desc%20x",
            "pageToken=nothex", "orderBy=a..b",
        ])
    func badListParameters(_ query: String) throws {
        try withTestKura { server in
            let response = try server.request("GET", "/api/docs/items?" + query)
            #expect(response.status == 400, "\(response)")
            #expect(response.errorCode == "INVALID_QUERY", "\(response)")
        }
    }

    @Test("POST /api/query pages through results with pageToken, each document exactly once")
    func queryPages() throws {
        try withTestKura { server in
            var writes: [[String: Any]] = []
            for i in 0..<30 {
                writes.append(["op": "set", "path": "q/d\(i)", "data": ["n": i % 5, "even": i % 2 == 0]])
            }
            try server.commit(writes)
            var seen: [String] = []
            var token: String?
            var pages = 0
            repeat {
                var query: [String: Any] = [
                    "collection": "q", "where": [["field": "n", "op": ">=", "value": 1]],
                    "orderBy": [["field": "n", "direction": "desc"]], "limit": 4,
                ]
                if let token { query["pageToken"] = token }
                let response = try server.request("POST", "/api/query", json: query)
                try #require(response.status == 200, "\(response)")
                seen += response.documentIDs
                token = response.nextPageToken
                pages += 1
            } while token != nil && pages < 50
            #expect(seen.count == 24)
            #expect(Set(seen).count == 24)
        }
    }
}
