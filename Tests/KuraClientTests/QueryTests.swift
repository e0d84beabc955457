import Foundation
import KuraClient
import Testing

/// Queries against a real server: every operator, order, limits, cursors, paging and counts.
@Suite struct QueryTests {
    /// Ten items `i0`…`i9` with `n` = 0…9, `parity`, `tags` and a `name`.
    func seed(_ kura: Kura, _ uid: String) async throws -> CollectionReference {
        let items = kura.collection("users/\(uid)/items")
        let batch = kura.batch()
        for n in 0..<10 {
            batch.setData(
                [
                    "n": .init(n), "parity": n % 2 == 0 ? "even" : "odd", "tags": [.init("t\(n % 3)")],
                    "name": .init("item \(n)"),
                ],
                forDocument: items.document("i\(n)"))
        }
        try await batch.commit()
        return items
    }

    func ids(_ query: Query) async throws -> [String] { try await query.getDocuments().documents.map(\.documentID) }

    @Test func everyOperator() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let items = try await seed(kura, uid)
            let byN = items.order(by: "n")
            #expect(try await ids(byN.whereField("n", isEqualTo: 3)) == ["i3"])
            #expect(try await ids(byN.whereField("n", isNotEqualTo: 3)).count == 9)
            #expect(try await ids(byN.whereField("n", isLessThan: 2)) == ["i0", "i1"])
            #expect(try await ids(byN.whereField("n", isLessThanOrEqualTo: 2)) == ["i0", "i1", "i2"])
            #expect(try await ids(byN.whereField("n", isGreaterThan: 7)) == ["i8", "i9"])
            #expect(try await ids(byN.whereField("n", isGreaterThanOrEqualTo: 8)) == ["i8", "i9"])
            #expect(try await ids(byN.whereField("tags", arrayContains: "t0")) == ["i0", "i3", "i6", "i9"])
            #expect(try await ids(byN.whereField("tags", arrayContainsAny: ["t1", "t2"])).count == 6)
            #expect(try await ids(byN.whereField("n", in: [1, 5, 42])) == ["i1", "i5"])
            #expect(try await ids(byN.whereField("n", notIn: [0, 1, 2, 3, 4, 5, 6])) == ["i7", "i8", "i9"])
            #expect(
                try await ids(items.whereField("parity", isEqualTo: "odd").whereField("n", isGreaterThan: 4))
                    == ["i5", "i7", "i9"])
            #expect(try await ids(items.whereField("id", isEqualTo: "i4")) == ["i4"])
            let bad = await #expect(throws: KuraError.self) {
                try await items.whereField("n", notIn: [1]).whereField("name", isNotEqualTo: "z").getDocuments()
            }
            #expect(bad?.code == .invalidQuery)
        }
    }

    @Test func orAndFiltersAndSeveralInequalities() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let items = try await seed(kura, uid)
            let either = Filter.orFilter([
                Filter.whereField("n", isEqualTo: 1),
                Filter.andFilter([
                    Filter.whereField("parity", isEqualTo: "even"), Filter.whereField("n", isGreaterThan: 6),
                ]),
            ])
            // The inequality on n (inside the or) orders by n.
            #expect(try await ids(items.whereFilter(either)) == ["i1", "i8"])
            #expect(try await items.whereFilter(either).count() == 2)
            let tags = items.whereFilter(
                .orFilter([.whereField("tags", arrayContains: "t2"), .whereField("id", isEqualTo: "i0")]))
            #expect(try await ids(tags) == ["i0", "i2", "i5", "i8"])
            // Inequalities on two fields: ordered by n, then name; a document cursor holds both.
            let ranged = items.whereField("n", isGreaterThan: 1).whereField("name", isLessThan: "item 6")
            let page = try await ranged.limit(to: 2).getDocuments()
            #expect(page.documents.map(\.documentID) == ["i2", "i3"])
            let last = try #require(page.documents.last)
            #expect(try await ids(ranged.start(afterDocument: last)) == ["i4", "i5"])
            let aggregated = try await items.whereFilter(either)
                .aggregate([.count(), .sum("n"), .average("n"), .average("name")]).getAggregation(source: .server)
            #expect(aggregated.count == 2)
            #expect(aggregated.get(.sum("n")) == 9)
            #expect(aggregated.get(.average("n")) == 4.5)
            #expect(aggregated.get(.average("name")) == KuraValue.null)
            #expect(aggregated.get(.sum("missing")) == nil)
        }
    }

    @Test func orderLimitAndCursors() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let items = try await seed(kura, uid)
            let descending = items.order(by: "n", descending: true)
            #expect(try await ids(descending.limit(to: 3)) == ["i9", "i8", "i7"])
            #expect(try await ids(items.order(by: "n").start(after: [6])) == ["i7", "i8", "i9"])
            #expect(try await ids(items.order(by: "n").start(at: [6]).end(before: [8])) == ["i6", "i7"])
            #expect(try await ids(items.order(by: "n").end(at: [1])) == ["i0", "i1"])

            // Paging with the last document of the previous page, even across ties in the sort field.
            var pages: [[String]] = []
            var query = items.order(by: "parity").limit(to: 4)
            while true {
                let page = try await query.getDocuments()
                guard let last = page.documents.last else { break }
                pages.append(page.documents.map(\.documentID))
                query = items.order(by: "parity").limit(to: 4).start(afterDocument: last)
            }
            #expect(pages.map(\.count) == [4, 4, 2])
            #expect(Set(pages.joined()).count == 10)

            let snapshot = try await items.order(by: "n").getDocuments()
            #expect(snapshot.count == 10)
            #expect(snapshot.documentChanges.map(\.type) == Array(repeating: .added, count: 10))
            #expect(snapshot.documents[4].fields["name"] == "item 4")
        }
    }

    @Test func countAndPagingPastThePageSize() async throws {
        // Pages of 3: getDocuments must follow page tokens to return all ten.
        try await withServer(configure: { try? $0.set("docs.defaultPageSize", "3") }) { server in
            let (kura, uid) = try await signedInClient(server)
            let items = try await seed(kura, uid)
            #expect(try await items.getDocuments().count == 10)
            #expect(try await items.order(by: "n").limit(to: 7).getDocuments().count == 7)
            #expect(try await items.count() == 10)
            #expect(try await items.whereField("parity", isEqualTo: "even").count() == 5)
            #expect(try await items.limit(to: 4).count() == 4)
            #expect(try await kura.collection("users/\(uid)/empty").count() == 0)
        }
    }

    @Test func collectionGroupQueries() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            try await kura.document("users/\(uid)/lists/a/todos/t1").setData(["owner": .string(uid), "n": 1])
            try await kura.document("users/\(uid)/lists/b/todos/t2").setData(["owner": .string(uid), "n": 2])
            let query = kura.collectionGroup("todos").whereField("owner", isEqualTo: .string(uid)).order(by: "n")
            let snapshot = try await query.getDocuments()
            #expect(
                snapshot.documents.map(\.reference.path) == [
                    "users/\(uid)/lists/a/todos/t1", "users/\(uid)/lists/b/todos/t2",
                ])
            #expect(try await query.count() == 2)
        }
    }
}
