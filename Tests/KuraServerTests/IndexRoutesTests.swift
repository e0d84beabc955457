import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// Composite indexes over HTTP: the missing-index error, `kura.indexes.json`, `/api/admin/indexes` and
/// `POST /api/query?explain=true`.
@Suite struct IndexRoutesTests {
    /// 6100 `todos/t<n>`: `cat == 7` on the 4100 with the smallest `n`, `cat` in 100…149 on the others.
    static func seeded(_ server: TestKura) throws {
        for start in stride(from: 0, to: 6100, by: 500) {
            let writes: [[String: Any]] = (start..<min(start + 500, 6100)).map { i in
                ["op": "set", "path": "todos/t\(i)", "data": ["cat": i < 4100 ? 7 : 100 + i % 50, "n": i]]
            }
            try server.commit(writes)
        }
    }

    static var query: [String: Any] {
        [
            "collection": "todos", "where": [["field": "cat", "op": "==", "value": 7]],
            "orderBy": [["field": "n", "direction": "desc"]], "limit": 2,
        ]
    }

    /// Polls `GET /api/admin/indexes` until every index is READY (the build runs in the background).
    static func waitUntilReady(_ server: TestKura) throws -> [[String: Any]] {
        for _ in 0..<600 {
            let response = try server.request("GET", "/api/admin/indexes")
            try #require(response.status == 200, "\(response)")
            let indexes = response.json["indexes"] as? [[String: Any]] ?? []
            if !indexes.isEmpty && indexes.allSatisfy({ $0["state"] as? String == "READY" }) { return indexes }
            usleep(50_000)
        }
        Issue.record("the indexes did not become READY")
        return []
    }

    @Test func pastingTheDefinitionIntoTheFileMakesTheQueryWork() throws {
        try withTestKura(configure: {
            $0.store.maxScanRows = 50
            $0.rulesReloadInterval = 0.05
        }) { server in
            try Self.seeded(server)
            let refused = try server.request("POST", "/api/query", json: Self.query)
            #expect(refused.status == 400)
            #expect(refused.errorCode == "FAILED_PRECONDITION")
            let message = (refused.json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains("kura.indexes.json"))
            let definition = try #require(message.range(of: "{").map { String(message[$0.lowerBound...]) })
            let file = "{\"indexes\":[\(definition)],\"fieldOverrides\":[]}"
            try file.write(
                toFile: server.dataDirectory + "/kura.indexes.json", atomically: true, encoding: .utf8)
            let indexes = try Self.waitUntilReady(server)
            #expect(indexes.count == 1)
            #expect(indexes.first?["collectionGroup"] as? String == "todos")
            #expect(indexes.first?["documentsScanned"] as? Int == 6100)
            let answered = try server.request("POST", "/api/query", json: Self.query)
            #expect(answered.status == 200, "\(answered)")
            #expect(answered.documentIDs == ["t4099", "t4098"])
            let explained = try server.request("POST", "/api/query?explain=true", json: Self.query)
            #expect(explained.status == 200)
            let explain = explained.json["explain"] as? [String: Any] ?? [:]
            #expect(explain["compositeIndexId"] as? Int == indexes.first?["id"] as? Int)
            #expect(explain["rowsExamined"] as? Int == 2)
            #expect(explain["rowsReturned"] as? Int == 2)
            let anonymous = try server.request("POST", "/api/query?explain=true", json: Self.query, auth: .none)
            #expect(anonymous.status == 403)
        }
    }

    /// `cat in [105, 106] order by n desc`: refused without the index, answered from it (one range per value,
    /// merged) once its pasted definition is built; the count and the next page come from it too.
    @Test func anInQuerysPastedDefinitionMakesItWork() throws {
        try withTestKura(configure: {
            $0.store.maxScanRows = 50
            $0.rulesReloadInterval = 0.05
        }) { server in
            try Self.seeded(server)
            let query: [String: Any] = [
                "collection": "todos", "where": [["field": "cat", "op": "in", "value": [105, 106]]],
                "orderBy": [["field": "n", "direction": "desc"]], "limit": 3,
            ]
            let refused = try server.request("POST", "/api/query", json: query)
            #expect(refused.status == 400)
            #expect(refused.errorCode == "FAILED_PRECONDITION")
            let message = (refused.json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains("todos (cat ASC, n DESC) COLLECTION"))
            let definition = try #require(message.range(of: "{").map { String(message[$0.lowerBound...]) })
            try "{\"indexes\":[\(definition)]}".write(
                toFile: server.dataDirectory + "/kura.indexes.json", atomically: true, encoding: .utf8)
            _ = try Self.waitUntilReady(server)
            let answered = try server.request("POST", "/api/query", json: query)
            #expect(answered.status == 200, "\(answered)")
            #expect(answered.documentIDs == ["t6056", "t6055", "t6006"])
            var next = query
            next["pageToken"] = answered.json["nextPageToken"] as? String
            let page = try server.request("POST", "/api/query", json: next)
            #expect(page.documentIDs == ["t6005", "t5956", "t5955"])
            var all = query
            all["limit"] = nil
            let counted = try server.request("POST", "/api/query/count", json: all)
            #expect(counted.json["count"] as? Int == 80)
            let explained = try server.request("POST", "/api/query?explain=true", json: query)
            let explain = explained.json["explain"] as? [String: Any] ?? [:]
            #expect(explain["compositeIndexId"] is Int)
            #expect(explain["rowsReturned"] as? Int == 3)
            #expect((explain["rowsExamined"] as? Int ?? 99) <= 3 + 2)
        }
    }

    @Test func theAdminAPIDeclaresListsAndDropsIndexes() throws {
        try withTestKura(configure: { $0.store.maxScanRows = 50 }) { server in
            try Self.seeded(server)
            let before = try server.request("POST", "/api/query?explain=true", json: Self.query)
            let explain = before.json["explain"] as? [String: Any] ?? [:]
            #expect(explain["compositeIndexId"] is NSNull)
            #expect((explain["rowsExamined"] as? Int ?? 0) > 2000)
            let suggested = try #require(explain["suggestedIndex"] as? [String: Any])
            let created = try server.request("POST", "/api/admin/indexes", json: suggested)
            #expect(created.status == 200, "\(created)")
            let id = try #require((created.json["indexes"] as? [[String: Any]])?.first?["id"] as? Int)
            _ = try Self.waitUntilReady(server)
            #expect(try server.request("POST", "/api/query", json: Self.query).documentIDs == ["t4099", "t4098"])
            let again = try server.request("POST", "/api/admin/indexes", json: ["indexes": [suggested]])
            #expect((again.json["indexes"] as? [[String: Any]])?.first?["id"] as? Int == id)
            #expect(try server.request("DELETE", "/api/admin/indexes/\(id)").status == 200)
            #expect(try server.request("DELETE", "/api/admin/indexes/\(id)").status == 404)
            #expect(try server.request("POST", "/api/query", json: Self.query).status == 400)
            let bad = try server.request(
                "POST", "/api/admin/indexes", json: ["collectionGroup": "todos", "fields": [["fieldPath": "a"]]])
            #expect(bad.status == 400)
            #expect(try server.request("GET", "/api/admin/indexes", auth: .none).status == 401)
        }
    }
}
