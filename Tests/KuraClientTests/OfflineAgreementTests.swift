import Foundation
import Testing

@testable import KuraClient

/// The SDK's offline evaluation (`LocalEvaluation.run`, KuraModel's `QueryMatcher`) and the server
/// (`POST /api/query` over HTTP, the SQLite engine) give the same documents in the same order: one table of
/// documents, many queries, both ways. Mixed numbers near 2^53 are in it on purpose: the SDK's former copy of the
/// value order compared them as doubles and disagreed with the server.
@Suite struct OfflineAgreementTests {
    static let rows: [DocumentData] = [
        ["n": 1, "s": "a", "tags": ["x"]],
        ["n": 2.5, "s": "b", "tags": ["x", "y"]],
        ["n": -3, "s": "ab", "m": ["k": 1]],
        ["n": "text", "s": "c", "tags": []],
        ["s": "d", "m": ["k": 2]],
        ["n": .null, "s": "e"],
        ["n": true, "s": "caf\u{E9}"],
        ["n": .integer(9_007_199_254_740_993), "s": "cafe\u{301}"],
        ["n": .double(9_007_199_254_740_992), "s": "f"],
        ["n": 1.0, "s": "g", "tags": ["y"]],
        ["n": ["a": 1], "s": "h"],
        ["n": [1, 2], "s": "i"],
    ]

    @Test func offlineEvaluationAgreesWithTheServer() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let items = kura.collection("users/\(uid)/items")
            let batch = kura.batch()
            for (index, row) in Self.rows.enumerated() { batch.setData(row, forDocument: items.document("d\(index)")) }
            try await batch.commit()
            let all = try await items.query.fetchAll()
            #expect(all.count == Self.rows.count)
            let queries: [Query] = [
                items.order(by: "n"), items.order(by: "n", descending: true).limit(to: 5),
                items.whereField("n", isGreaterThan: .double(9_007_199_254_740_992)),
                items.whereField("n", isLessThan: .integer(9_007_199_254_740_993)),
                items.whereField("n", isGreaterThan: 1), items.whereField("n", isLessThanOrEqualTo: 2.5),
                items.whereField("n", isEqualTo: 1), items.whereField("n", isNotEqualTo: 1),
                items.whereField("n", in: [1, "text", .null]), items.whereField("n", notIn: [1, true]),
                items.whereField("tags", arrayContains: "x"), items.whereField("tags", arrayContainsAny: ["y", "z"]),
                items.whereField("s", isGreaterThanOrEqualTo: "ab").order(by: "s"),
                items.whereField("s", isGreaterThan: "caf\u{E9}"), items.whereField("m.k", isEqualTo: 1),
                items.order(by: "s").start(after: ["b"]).end(at: ["e"]),
                items.order(by: "n").start(at: [2.5]), items.order(by: "m.k", descending: true),
                items.order(by: "id", descending: true).limit(to: 4), items.whereField("id", isGreaterThan: "d5"),
                items.whereField("n", isGreaterThan: "a"), items.whereField("n", isGreaterThan: ["a": 0]),
            ]
            for query in queries {
                let fromServer = try await query.fetchAll().map(\.path)
                let offline = try LocalEvaluation.run(query, over: all).map(\.path)
                #expect(offline == fromServer, "\(query)")
            }
        }
    }

    /// `in` and `array-contains-any` answered by the server from composite indexes (one range per value,
    /// merged) agree with the offline evaluation: both directions, limits, cursors, values of mixed types, and
    /// documents that hold several of the values.
    @Test func disjunctionsServedFromCompositeIndexesAgree() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let items = kura.collection("users/\(uid)/items")
            let batch = kura.batch()
            let kinds: [KuraValue] = [1, "one", .null, true, 2.0, ["a"], .integer(9_007_199_254_740_993)]
            for i in 0..<60 {
                var row: DocumentData = [
                    "cat": kinds[i % kinds.count], "n": .integer(Int64((i * 17) % 60)),
                    "tags": .array([.string("t\(i % 3)"), .string("t\(i % 4)")]),
                ]
                if i % 9 == 0 { row["n"] = .string("s\(i)") }
                batch.setData(row, forDocument: items.document("d\(i)"))
            }
            try await batch.commit()
            let cat: [String: Any] = ["fieldPath": "cat", "order": "ASCENDING"]
            let tags: [String: Any] = ["fieldPath": "tags", "arrayConfig": "CONTAINS"]
            let indexes: [[String: Any]] = [cat, tags].flatMap { first in
                ["ASCENDING", "DESCENDING"].map { direction -> [String: Any] in
                    [
                        "collectionGroup": "items", "queryScope": "COLLECTION",
                        "fields": [first, ["fieldPath": "n", "order": direction]],
                    ]
                }
            }
            let declared = try await server.admin("POST", "/api/admin/indexes", json: ["indexes": indexes])
            #expect(declared.status == 200)
            var ready = false
            for _ in 0..<200 where !ready {
                let listed = try await server.admin("GET", "/api/admin/indexes")
                let states = ((listed.body as? [String: Any])?["indexes"] as? [[String: Any]] ?? []).map {
                    $0["state"] as? String
                }
                ready = states.count == 4 && states.allSatisfy { $0 == "READY" }
                if !ready { try await Task.sleep(nanoseconds: 50_000_000) }
            }
            #expect(ready)
            let all = try await items.query.fetchAll()
            let mixed: [KuraValue] = [1, "one", .null, ["a"], .integer(9_007_199_254_740_993)]
            let queries: [Query] = [
                items.whereField("cat", in: mixed).order(by: "n"),
                items.whereField("cat", in: [true, 2, "one"]).order(by: "n", descending: true).limit(to: 7),
                items.whereField("cat", in: mixed).order(by: "n").start(after: [20]).end(at: ["s27"]),
                items.whereField("cat", in: [1.0, .null]).order(by: "n", descending: true).start(at: [40]),
                items.whereField("cat", in: mixed).order(by: "cat").order(by: "n").limit(to: 12),
                items.whereField("cat", in: mixed).order(by: "cat", descending: true).order(by: "n", descending: true),
                items.whereField("tags", arrayContainsAny: ["t0", "t1"]).order(by: "n"),
                items.whereField("tags", arrayContainsAny: ["t1", "t2", "t3"]).order(by: "n", descending: true)
                    .limit(to: 9),
                items.whereField("tags", arrayContainsAny: ["t2", "t0"]).order(by: "n").start(after: [10]),
            ]
            for query in queries {
                let fromServer = try await query.fetchAll().map(\.path)
                let offline = try LocalEvaluation.run(query, over: all).map(\.path)
                #expect(!fromServer.isEmpty, "\(query)")
                #expect(offline == fromServer, "\(query)")
                let body = try JSONSerialization.jsonObject(with: try JSONText.encode(try query.json()))
                let explained = try await server.admin("POST", "/api/query?explain=true", json: body)
                let explain = (explained.body as? [String: Any])?["explain"] as? [String: Any] ?? [:]
                #expect((explain["index"] as? String ?? "").contains("ranges"), "\(query): \(explain)")
            }
        }
    }
}
