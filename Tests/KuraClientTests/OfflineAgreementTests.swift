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
}
