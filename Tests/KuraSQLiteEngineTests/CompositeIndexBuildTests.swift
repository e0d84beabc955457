import Foundation
import KuraCore
import KuraModel
import KuraStore
import KuraStoreTestSupport
import KuraTestSupport
import Testing

@testable import KuraSQLiteEngine

/// A SQLite index build computes its entries from a scan on read connections, then has the writer add them in key
/// order: the documents written in between must end with the entries of what they hold at the end.
@Suite struct CompositeIndexBuildTests {
    @Test("documents written between a build's scan and its entries end with the entries of their data")
    func writesBetweenTheScanAndTheEntries() throws {
        let directory = try TemporaryDirectory("store")
        defer { directory.remove() }
        let store = try SQLiteDocumentStore(path: directory.path + "/kura.db")
        defer { store.close() }
        try MissingIndexData.load(into: store)  // todos/t0…t6099, {cat, n}, created once each
        let index = try #require(CompositeIndex.suggested(for: try NormalizedQuery(MissingIndexData.query())))
        let hookRan = LogLines()
        store.buildScanned.set { _ in
            do {
                // A field the index does not hold: the write leaves the index alone, its entry is the build's.
                try store.update(doc("todos/t5"), [(try field("note"), "x")])
                // Moved within the index, out of it (no `cat` left), and deleted.
                try store.update(doc("todos/t6"), [(try field("n"), 100_000)])
                try store.set(doc("todos/t8"), object(["n": 8]))
                try store.delete(doc("todos/t7"))
                // Deleted and created again with other data: the same row id (it had the largest), version 1 again.
                try store.delete(doc("todos/t6099"))
                try store.set(doc("todos/t6099"), object(["cat": 7, "n": -1]))
                hookRan.append("ran")
            } catch {
                Issue.record(error)
            }
        }
        let status = try store.createIndex(index)
        store.waitForIndexJobs()
        #expect(hookRan.all == ["ran"])
        #expect(store.compositeIndexes.map(\.state) == [.ready])
        let (expected, actual) = try store.readers.withConnection { connection in
            var expected: [[UInt8]] = []
            let collection = try col("todos")
            for row in try connection.rows(
                "SELECT d.id, d.data FROM docs d JOIN collections c ON c.cid = d.cid WHERE c.path = 'todos'")
            {
                guard let id = row[0].text, let data = row[1].blob, case .object(let fields) = try JSONValue.parse(data)
                else { continue }
                expected += CompositeIndexKey.keys(index, fields: fields, id: id, collection: collection)
            }
            let actual = try connection.rows("SELECT key FROM cidx WHERE iid = ?", [.int(status.id)]).map {
                $0[0].blob ?? []
            }
            return (expected, actual)
        }
        #expect(expected.count == 6098)
        #expect(actual.count == expected.count)
        let missing = Set(expected).subtracting(actual)
        let stale = Set(actual).subtracting(expected)
        #expect(missing.isEmpty, "\(missing.count) entries missing")
        #expect(stale.isEmpty, "\(stale.count) entries of data the documents no longer hold")
        #expect(try store.query(MissingIndexData.query()).documents.map(\.id) == ["t6", "t4099"])
    }

    @Test("a build step that a write is waiting for ends after a few entries, and the next step adds the rest")
    func aStepMakesWayForAWaitingWrite() throws {
        let directory = try TemporaryDirectory("store")
        defer { directory.remove() }
        let store = try SQLiteDocumentStore(path: directory.path + "/kura.db")
        defer { store.close() }
        try MissingIndexData.load(into: store)
        let index = try #require(CompositeIndex.suggested(for: try NormalizedQuery(MissingIndexData.query())))
        // Recorded CREATING without a build of its own: the steps below are the test's.
        let iid = try store.writer.submit(size: 1) { try $0.insertCompositeIndex(index) }
        let (entries, documents) = try store.readers.withConnection {
            try SQLiteDocumentStore.scanEntries(index, $0, from: 0, window: 100)
        }
        #expect(entries.count == 100 && documents == 100)
        let first = try store.writer.submit(size: 100, background: true) {
            try $0.addBuiltEntries(iid, index, entries, scanned: 100, done: false, shouldYield: { true })
        }
        #expect(first == 16)
        let second = try store.writer.submit(size: 100, background: true) {
            try $0.addBuiltEntries(iid, index, Array(entries[first...]), scanned: 100, done: false)
        }
        #expect(second == 84)
        let stored = try store.readers.withConnection {
            try $0.rows("SELECT count(*) FROM cidx WHERE iid = ?", [.int(iid)]).first?[0].int
        }
        #expect(stored == 100)
    }
}
