import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// `list` rules that depend on each document: queries, lists and counts return exactly the documents the caller
/// may list, page after page, without repeats, skips or leaks.
@Suite struct RulesListFilterTests {
    static let rules = """
        rules_version = '1';
        match /items/{id} {
          allow get, list: if request.auth != null && resource.data.owner == request.auth.uid;
        }
        """

    /// 40 items ranked 0..<40; the owner pattern is irregular so that runs of unreadable documents span pages.
    /// Returns A's item IDs in rank order.
    private func load(_ server: TestKura, a: String, b: String) throws -> [String] {
        var writes: [[String: Any]] = []
        var mine: [String] = []
        for rank in 0..<40 {
            let id = String(format: "i%02d", 39 - rank)  // IDs in the opposite order of ranks
            var data: [String: Any] = ["rank": rank, "secret": "hidden-\(rank)"]
            switch rank {
            case 3, 4, 5, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 30: data["owner"] = b
            case 7: break  // no owner: the rule fails to evaluate, which denies
            default:
                data["owner"] = a
                mine.append(id)
            }
            writes.append(["op": "set", "path": "items/\(id)", "data": data])
        }
        try server.commit(writes)
        return mine
    }

    @Test("query pages of every size hold exactly the readable documents, in order", arguments: [1, 2, 3, 7, 50])
    func queryPages(limit: Int) throws {
        try withRulesKura(rules: Self.rules) { server in
            let a = try server.signUp("a@example.com")
            let b = try server.signUp("b@example.com")
            let mine = try load(server, a: a.uid, b: b.uid)
            let query: [String: Any] = ["collection": "items", "orderBy": [["field": "rank"]]]
            let (ids, pages) = try server.queryAllPages(query, limit: limit, as: a)
            #expect(ids == mine)
            // Full pages until the documents run out (one more, empty, page when they end on a page boundary).
            #expect(pages == mine.count / limit + 1)
            let descending: [String: Any] = [
                "collection": "items", "orderBy": [["field": "rank", "direction": "desc"]],
            ]
            #expect(try server.queryAllPages(descending, limit: limit, as: a).ids == mine.reversed())
            let theirs = try server.queryAllPages(query, limit: limit, as: b).ids
            #expect(Set(theirs).isDisjoint(with: mine) && theirs.count == 15)
            #expect(try server.queryAllPages(query, limit: limit, as: nil).ids.isEmpty)
        }
    }

    @Test("GET of the collection pages the same way (limit, pageToken)")
    func listPages() throws {
        try withRulesKura(rules: Self.rules) { server in
            let a = try server.signUp("a@example.com")
            let b = try server.signUp("b@example.com")
            let mine = try load(server, a: a.uid, b: b.uid)
            var ids: [String] = []
            var token: String? = nil
            var pages = 0
            repeat {
                var target = "/api/docs/items?limit=4&orderBy=rank"
                if let token { target += "&pageToken=\(token)" }
                let response = try server.request("GET", target, as: a)
                try #require(response.status == 200, "\(response)")
                #expect(!response.body.contains("\"owner\":\"\(b.uid)\""))
                ids += response.documentIDs
                token = response.nextPageToken
                pages += 1
            } while token != nil && pages < 50
            #expect(ids == mine)
        }
    }

    @Test("count is the number of readable documents; cursors, filters and limit apply")
    func count() throws {
        try withRulesKura(rules: Self.rules) { server in
            let a = try server.signUp("a@example.com")
            let b = try server.signUp("b@example.com")
            let mine = try load(server, a: a.uid, b: b.uid)
            func count(_ body: [String: Any], as session: Session?) throws -> Int? {
                let response = try server.request("POST", "/api/query/count", json: body, as: session)
                #expect(response.status == 200, "\(response)")
                return response.json["count"] as? Int
            }
            #expect(try count(["collection": "items"], as: a) == mine.count)
            #expect(try count(["collection": "items"], as: b) == 15)
            #expect(try count(["collection": "items"], as: nil) == 0)
            #expect(try count(["collection": "items"], as: nil) == 0)
            #expect(try count(["collection": "items", "limit": 5], as: a) == 5)
            let below10: [String: Any] = ["collection": "items", "where": [["field": "rank", "op": "<", "value": 10]]]
            #expect(try count(below10, as: a) == 6)  // 0 1 2 6 8 9
            let cursor: [String: Any] = ["collection": "items", "orderBy": [["field": "rank"]], "startAt": [20]]
            #expect(try count(cursor, as: a) == mine.count - 7)  // A has 7 ranks below 20
            #expect(try count(["collection": "items"], as: nil) == 0)
        }
    }

    @Test("rules see the whole document; the answer holds only the selected fields")
    func select() throws {
        try withRulesKura(rules: Self.rules) { server in
            let a = try server.signUp("a@example.com")
            let b = try server.signUp("b@example.com")
            let mine = try load(server, a: a.uid, b: b.uid)
            let query: [String: Any] = [
                "collection": "items", "orderBy": [["field": "rank"]], "select": ["rank"], "limit": 5,
            ]
            let response = try server.request("POST", "/api/query", json: query, as: a)
            #expect(response.status == 200, "\(response)")
            #expect(response.documentIDs == Array(mine.prefix(5)))
            let data = (response.json["documents"] as? [[String: Any]] ?? []).compactMap {
                $0["data"] as? [String: Any]
            }
            #expect(data.count == 5 && data.allSatisfy { $0.keys.sorted() == ["rank"] })
            // The next page continues right after the last document answered.
            var next = query
            next["pageToken"] = response.nextPageToken
            let second = try server.request("POST", "/api/query", json: next, as: a)
            #expect(second.documentIDs == Array(mine.dropFirst(5).prefix(5)))
        }
    }

    @Test("single reads follow the same rule: get of a readable document works, of another is 403")
    func get() throws {
        try withRulesKura(rules: Self.rules) { server in
            let a = try server.signUp("a@example.com")
            let b = try server.signUp("b@example.com")
            let mine = try load(server, a: a.uid, b: b.uid)
            #expect(try server.request("GET", "/api/docs/items/\(mine[0])", as: a).status == 200)
            expectDenied(try server.request("GET", "/api/docs/items/i36", as: a), hiding: "hidden")  // rank 3: B's
            // Now from the cache (the admin read fills it): the rule reads resource.data on the event loop.
            #expect(try server.request("GET", "/api/docs/items/i36").status == 200)
            #expect(try server.cachedVersion("items/i36") == 1)
            expectDenied(try server.request("GET", "/api/docs/items/i36", as: a), hiding: "hidden")
            #expect(try server.request("GET", "/api/docs/items/i36", as: b).status == 200)
            expectDenied(try server.request("GET", "/api/docs/items/i32", as: b))  // rank 7: nobody's
        }
    }
}
