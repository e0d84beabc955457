import Foundation
import KuraCore
import KuraModel
import KuraStore
import KuraStoreTestSupport
import KuraTestSupport
import Testing

@testable import KuraPostgresEngine

/// An `in` query over a composite index runs one statement per value; they share one snapshot, so a commit
/// landing between two of them is seen by all or none.
@Suite(TestPostgres.available)
struct PostgresDisjunctionSnapshotTests {
    /// Every document of `collection` `m0…`, with the `cat` of generation `generation`.
    static func swapped(_ generation: Int, _ collection: CollectionPath, _ total: Int) throws -> [Write] {
        try (0..<total).map { i in
            let cat: Int64 = (i + generation) % 2 == 0 ? 1 : 2
            return Write(
                path: try collection.document("m\(i)"),
                operation: .set(["cat": .int(cat), "n": .int(Int64(i))], merge: false))
        }
    }

    /// 200 documents `m<i>` with `cat` 1 or 2 and `n = i`; every commit of the writer swaps the `cat` of all of
    /// them at once. Read without one snapshot, the range `cat == 1` could see them before a swap and the range
    /// `cat == 2` after it: the same documents twice, the others not at all.
    @Test func rangesReadOneSnapshotWhileCommitsMoveDocumentsBetweenThem() throws {
        let store = try PostgresDocumentStore(
            database: PostgresDatabase(url: try TestPostgres.freshDatabase(), poolSize: 4))
        defer { store.close() }
        let moving = try col("moving")
        let total = 200
        _ = try store.commit(try Self.swapped(0, moving, total))
        let query = StructuredQuery(
            .collection(moving), filters: [Filter(.field(try field("cat")), .in, [1, 2])],
            orderBy: [Order(.field(try field("n")))])
        try store.createIndex(try #require(CompositeIndex.suggested(for: try NormalizedQuery(query))))
        store.waitForIndexJobs()
        #expect(try store.explain(query).index.contains("2 ranges merged"))
        let expected = (0..<total).map { "m\($0)" }
        let stop = Shared(false)
        let writer = TestThread { () throws -> Int in
            var generation = 1
            while !stop.withLock({ $0 }) {
                _ = try store.commit(try Self.swapped(generation, moving, total))
                generation += 1
            }
            return generation - 1
        }
        var wrong: [String] = []
        for round in 0..<300 {
            let ids = try store.query(query).documents.map(\.id)
            if ids != expected { wrong.append("query #\(round): \(ids.count) documents, \(Set(ids).count) distinct") }
            let count = try store.count(query)
            if count != Int64(total) { wrong.append("count #\(round): \(count)") }
        }
        stop.withLock { $0 = true }
        let swaps = try writer.join()
        #expect(swaps > 0)
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }
}
