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
            expectError("INVALID_ARGUMENT", status: 400) { _ = try CompositeIndex.parseFile(Array(bad.utf8)) }
        }
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
