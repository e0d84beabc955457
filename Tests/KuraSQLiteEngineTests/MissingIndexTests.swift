import Foundation
import KuraCore
import KuraModel
import KuraStore
import KuraStoreTestSupport
import KuraTestSupport
import Testing

@testable import KuraSQLiteEngine

/// `maxScanRows` on SQLite beyond the engines' shared rule (KuraStoreTests' ConformanceMissingIndexTests): index
/// definitions in Firestore's JSON, and builds that resume after a restart.
@Suite struct MissingIndexTests {
    @Test func definitionsRoundTripFirestoreJSON() throws {
        let file = """
            {"indexes":[
              {"collectionGroup":"todos","queryScope":"COLLECTION","fields":[
                {"fieldPath":"done","order":"ASCENDING"},{"fieldPath":"createdAt","order":"DESCENDING"}]},
              {"collectionGroup":"posts","queryScope":"COLLECTION_GROUP","density":"SPARSE_ALL","fields":[
                {"fieldPath":"tags","arrayConfig":"CONTAINS"},{"fieldPath":"rank","order":"ASCENDING"},
                {"fieldPath":"__name__","order":"DESCENDING"}]}],
             "fieldOverrides":[{"collectionGroup":"todos","fieldPath":"body","indexes":[]}]}
            """
        let indexes = try CompositeIndex.parseFile(Array(file.utf8))
        #expect(
            indexes.map(\.description) == [
                "todos (done ASC, createdAt DESC) COLLECTION", "posts (tags CONTAINS, rank ASC) COLLECTION_GROUP",
            ])
        #expect(indexes[0].nameDescending)
        #expect(indexes[1].nameDescending)
        for index in indexes { #expect(try CompositeIndex(json: index.json) == index) }
        for bad in [
            #"{"indexes":[{"queryScope":"COLLECTION","fields":[]}]}"#,
            #"{"indexes":[{"collectionGroup":"a","fields":[{"fieldPath":"x","order":"UP"}]}]}"#,
            #"{"indexes":[{"collectionGroup":"a","fields":[{"fieldPath":"__name__","order":"ASCENDING"},{"fieldPath":"x","order":"ASCENDING"}]}]}"#,
            #"{"indexes":[{"collectionGroup":"a","fields":[{"fieldPath":"x","arrayConfig":"CONTAINS"},{"fieldPath":"y","arrayConfig":"CONTAINS"}]}]}"#,
            #"{"indexes":[{"collectionGroup":"a","fields":[{"fieldPath":"x","order":"ASCENDING"},{"fieldPath":"x","order":"DESCENDING"}]}]}"#,
        ] {
            expectError(.invalidArgument, status: 400) { _ = try CompositeIndex.parseFile(Array(bad.utf8)) }
        }
    }

    @Test("an index build takes steps of the configured length; the smallest index every document")
    func buildStepsFollowTheSetting() throws {
        let directory = try TemporaryDirectory("store")
        defer { directory.remove() }
        let log = LogLines()
        // A step of a microsecond: every step after the first (1000 entries) shrinks to the smallest window (100),
        // whatever the machine's speed, so the 6100 documents take 1 + 51 steps; with the default (5 ms) on a quick
        // machine they take a handful.
        let store = try SQLiteDocumentStore(
            .init(path: directory.path + "/kura.db", indexBuildStepSeconds: 0.000_001, log: { log.append($0) }))
        defer { store.close() }
        try MissingIndexData.load(into: store)
        let query = try MissingIndexData.query()
        try store.createIndex(try #require(CompositeIndex.suggested(for: try NormalizedQuery(query))))
        store.waitForIndexJobs()
        let status = try #require(store.compositeIndexes.first)
        #expect(status.state == .ready)
        #expect(status.documentsScanned == 6100)
        #expect(log.all.contains { $0.contains("READY (6100 documents, 6100 entries, 52 steps,") }, "\(log.all)")
        #expect(try store.query(query).documents.map(\.id) == ["t4099", "t4098"])
        #expect(try store.explain(query).compositeIndexID == status.id)
    }

    @Test func indexesSurviveARestartAndResumeTheirBuild() throws {
        let directory = try TemporaryDirectory("store")
        defer { directory.remove() }
        let path = directory.path + "/kura.db"
        let query = try MissingIndexData.query()
        do {
            let store = try SQLiteDocumentStore(path: path)
            let writes = try (0..<5000).map { i in
                Write(
                    path: try doc("todos/t\(i)"),
                    operation: .set(object(["cat": .int(Int64(i % 100)), "n": .int(Int64(i))]), merge: false))
            }
            for chunk in stride(from: 0, to: writes.count, by: 500) {
                _ = try store.commit(Array(writes[chunk..<chunk + 500]))
            }
            try store.createIndex(try #require(CompositeIndex.suggested(for: try NormalizedQuery(query))))
            store.close()  // likely mid-build: the build resumes on the next open
        }
        let store = try SQLiteDocumentStore(path: path)
        defer { store.close() }
        store.waitForIndexJobs()
        #expect(store.compositeIndexes.first?.state == .ready)
        #expect(try store.query(query).documents.map(\.id) == ["t4907", "t4807"])
        #expect(try store.explain(query).compositeIndexID != nil)
    }
}
