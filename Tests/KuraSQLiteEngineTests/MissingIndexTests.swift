import Foundation
import KuraCore
import KuraModel
import KuraStore
import KuraStoreTestSupport
import KuraTestSupport
import Testing

@testable import KuraSQLiteEngine

/// `maxScanRows`: a query a composite index would serve, examining too many rows it does not return, fails with
/// the index to declare; declaring exactly that index makes it work.
@Suite struct MissingIndexTests {
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    /// 6100 documents `t<n>`: `cat == 7` on the 4100 with the smallest `n`, `cat` in 100…149 on the others; in a
    /// store refusing more than 50 wasted rows. `cat == 7` is too common for the `==` driver, so `cat == 7 order
    /// by n desc` walks the `n` index from the top through 2000 other documents first.
    static func store(autoCreate: Bool = false, log: Lines) throws -> (SQLiteDocumentStore, TemporaryDirectory) {
        let directory = try TemporaryDirectory("store")
        let store = try SQLiteDocumentStore(
            .init(
                path: directory.path + "/kura.db", maxScanRows: 50, autoCreateIndexes: autoCreate,
                log: { log.append($0) }))
        let writes = try (0..<6100).map { i -> Write in
            let cat: Int64 = i < 4100 ? 7 : Int64(100 + i % 50)
            let fields: JSONObject = ["cat": .int(cat), "n": .int(Int64(i))]
            return Write(path: try doc("todos/t\(i)"), operation: .set(fields, merge: false))
        }
        for chunk in stride(from: 0, to: writes.count, by: 500) {
            _ = try store.commit(Array(writes[chunk..<min(chunk + 500, writes.count)]))
        }
        return (store, directory)
    }

    /// `cat == 7 order by n desc limit 2`.
    static func query() throws -> StructuredQuery {
        StructuredQuery(
            .collection(try col("todos")), filters: [Filter(.field(try field("cat")), .equal, 7)],
            orderBy: [Order(.field(try field("n")), descending: true)], limit: 2)
    }

    @Test func theErrorCarriesAWorkingDefinition() throws {
        let log = Lines()
        let (store, directory) = try Self.store(log: log)
        defer {
            store.close()
            directory.remove()
        }
        let query = try Self.query()
        let expected = try store.explain(query)
        #expect(expected.rowsExamined > 50)
        var message = ""
        expectError("FAILED_PRECONDITION", status: 400) {
            do { _ = try store.query(query) } catch let error as APIError {
                message = error.message
                throw error
            }
        }
        var all = query
        all.limit = nil
        expectError("FAILED_PRECONDITION", status: 400) { _ = try store.count(all) }
        // With a limit, a count stops at the first matches in any order: nothing wasted.
        #expect(try store.count(query) == 2)
        #expect(message.contains("todos (cat ASC, n DESC) COLLECTION"))
        #expect(log.all.filter { $0.hasPrefix("missing index") }.count == 1)
        // Paste the definition into a kura.indexes.json file, as the message says.
        let definition = try #require(message.range(of: "{").map { String(message[$0.lowerBound...]) })
        let file = "{\"indexes\":[\(definition)],\"fieldOverrides\":[]}"
        let indexes = try CompositeIndex.parseFile(Array(file.utf8))
        #expect(indexes.count == 1)
        for index in indexes { try store.createIndex(index) }
        store.waitForIndexJobs()
        let result = try store.query(query)
        #expect(result.documents.map(\.id) == ["t4099", "t4098"])
        #expect(try store.count(all) == 4100)
        let explanation = try store.explain(query)
        #expect(explanation.compositeIndexID != nil)
        #expect(explanation.rowsExamined == 2)
        #expect(explanation.rowsReturned == 2)
    }

    @Test func queriesNoCompositeIndexHelpsAreNeverRefused() throws {
        let log = Lines()
        let (store, directory) = try Self.store(log: log)
        defer {
            store.close()
            directory.remove()
        }
        let n = QueryField.field(try field("n"))
        let todos = StructuredQuery.Source.collection(try col("todos"))
        // Whole-collection walks: a single-field index serves them as well as any composite could.
        #expect(try store.query(StructuredQuery(todos, orderBy: [Order(n)])).documents.count == 6100)
        #expect(try store.count(StructuredQuery(todos)) == 6100)
        #expect(try store.query(StructuredQuery(todos, filters: [Filter(n, .greaterThan, 3)])).documents.count == 6096)
        #expect(
            try store.query(StructuredQuery(todos, filters: [Filter(.field(try field("cat")), .equal, 105)])).documents
                .count
                == 40)
        // `in` on the field ordered on: one single-field index range per value serves it.
        let inOrdered = StructuredQuery(todos, filters: [Filter(n, .in, [4105, 3, 7000])], orderBy: [Order(n)])
        #expect(try store.query(inOrdered).documents.map(\.id) == ["t3", "t4105"])
    }

    /// `cat in [105, 106] order by n limit 3` walks the `n` index through the 4100 `cat == 7` documents first; the
    /// error names `(cat ASC, n ASC)`, and with it declared the query reads one range per value, merged.
    @Test func anInQueryGetsAWorkingDefinition() throws {
        let log = Lines()
        let (store, directory) = try Self.store(log: log)
        defer {
            store.close()
            directory.remove()
        }
        let inQuery = StructuredQuery(
            .collection(try col("todos")), filters: [Filter(.field(try field("cat")), .in, [105, 106])],
            orderBy: [Order(.field(try field("n")))], limit: 3)
        #expect(try store.explain(inQuery).rowsExamined > 4100)
        var message = ""
        expectError("FAILED_PRECONDITION", status: 400) {
            do { _ = try store.query(inQuery) } catch let error as APIError {
                message = error.message
                throw error
            }
        }
        #expect(message.contains("todos (cat ASC, n ASC) COLLECTION"))
        let definition = try #require(message.range(of: "{").map { String(message[$0.lowerBound...]) })
        for index in try CompositeIndex.parseFile(Array("{\"indexes\":[\(definition)]}".utf8)) {
            try store.createIndex(index)
        }
        store.waitForIndexJobs()
        #expect(try store.query(inQuery).documents.map(\.id) == ["t4105", "t4106", "t4155"])
        var all = inQuery
        all.limit = nil
        #expect(try store.count(all) == 80)
        let explanation = try store.explain(inQuery)
        #expect(explanation.compositeIndexID != nil)
        #expect(explanation.index.contains("2 ranges merged"))
        #expect(explanation.rowsReturned == 3)
        #expect(explanation.rowsExamined <= 3 + 2)
    }

    @Test func autoCreateBuildsTheSuggestedIndex() throws {
        let log = Lines()
        let (store, directory) = try Self.store(autoCreate: true, log: log)
        defer {
            store.close()
            directory.remove()
        }
        let query = try Self.query()
        #expect(try store.query(query).documents.map(\.id) == ["t4099", "t4098"])
        store.waitForIndexJobs()
        #expect(store.compositeIndexes.map(\.index.description) == ["todos (cat ASC, n DESC) COLLECTION"])
        #expect(store.compositeIndexes.first?.state == .ready)
        #expect(log.all.contains { $0.hasPrefix("indexes.autoCreate: created index") })
        #expect(try store.explain(query).compositeIndexID != nil)
    }

    @Test func autoCreateBuildsTheIndexOfAnArrayContainsAnyQuery() throws {
        let log = Lines()
        let (store, directory) = try Self.store(autoCreate: true, log: log)
        defer {
            store.close()
            directory.remove()
        }
        try store.set(doc("todos/tagged1"), object(["tags": ["x", "y"], "n": 1]))
        try store.set(doc("todos/tagged2"), object(["tags": ["y"], "n": 2]))
        try store.set(doc("todos/tagged3"), object(["tags": ["z"], "n": 3]))
        let query = StructuredQuery(
            .collection(try col("todos")), filters: [Filter(.field(try field("tags")), .arrayContainsAny, ["y", "x"])],
            orderBy: [Order(.field(try field("n")), descending: true)], limit: 5)
        #expect(try store.query(query).documents.map(\.id) == ["tagged2", "tagged1"])
        store.waitForIndexJobs()
        #expect(store.compositeIndexes.map(\.index.description) == ["todos (tags CONTAINS, n DESC) COLLECTION"])
        #expect(log.all.contains { $0.hasPrefix("indexes.autoCreate: created index") })
        let explanation = try store.explain(query)
        #expect(explanation.compositeIndexID != nil)
        #expect(try store.query(query).documents.map(\.id) == ["tagged2", "tagged1"])
        #expect(try store.count(query) == 2)
        #expect(explanation.rowsExamined <= 3 + 2)
    }

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
        let query = try Self.query()
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
