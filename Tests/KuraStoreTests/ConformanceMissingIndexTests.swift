import Foundation
import KuraCore
import KuraModel
import KuraStore
import KuraStoreTestSupport
import Testing

/// Conformance: `maxScanRows` (`ScanPolicy`). A query a composite index would serve, examining too many rows it
/// does not return, fails with the index to declare; declaring exactly that index makes it work; with
/// `autoCreateIndexes` the index is built instead. Data: `MissingIndexData`, in a store refusing more than 50
/// wasted rows.
@Suite struct ConformanceMissingIndexTests {
    static func store(_ engine: EngineUnderTest, autoCreate: Bool = false, log: LogLines) throws -> StoreHarness {
        var configuration = StoreConfiguration()
        configuration.maxScanRows = 50
        configuration.autoCreateIndexes = autoCreate
        let harness = try engine.open(configuration) { log.append($0) }
        try MissingIndexData.load(into: harness.store)
        return harness
    }

    /// The message of the 400 `FAILED_PRECONDITION` `body` fails with.
    static func refusal(_ body: () throws -> Void) -> String {
        var message = ""
        expectError(.failedPrecondition, status: 400) {
            do { try body() } catch let error as APIError {
                message = error.message
                throw error
            }
        }
        return message
    }

    @Test(arguments: EngineUnderTest.all)
    func theErrorCarriesAWorkingDefinition(_ engine: EngineUnderTest) throws {
        let log = LogLines()
        let harness = try Self.store(engine, log: log)
        let store = harness.store
        let query = try MissingIndexData.query()
        #expect(try store.explain(query).rowsExamined > 50)
        let message = Self.refusal { _ = try store.query(query) }
        var all = query
        all.limit = nil
        expectError(.failedPrecondition, status: 400) { _ = try store.count(all) }
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
        #expect(try store.query(query).documents.map(\.id) == ["t4099", "t4098"])
        #expect(try store.count(all) == 4100)
        let explanation = try store.explain(query)
        #expect(explanation.compositeIndexID != nil)
        #expect(explanation.rowsExamined == 2)
        #expect(explanation.rowsReturned == 2)
    }

    @Test(arguments: EngineUnderTest.all)
    func queriesNoCompositeIndexHelpsAreNeverRefused(_ engine: EngineUnderTest) throws {
        let harness = try Self.store(engine, log: LogLines())
        let store = harness.store
        let n = QueryField.field(try field("n"))
        let todos = StructuredQuery.Source.collection(try col("todos"))
        // Whole-collection walks: a single-field index serves them as well as any composite could.
        #expect(try store.query(StructuredQuery(todos, orderBy: [Order(n)])).documents.count == 6100)
        #expect(try store.count(StructuredQuery(todos)) == 6100)
        #expect(try store.query(StructuredQuery(todos, filters: [Filter(n, .greaterThan, 3)])).documents.count == 6096)
        let cat105 = StructuredQuery(todos, filters: [Filter(.field(try field("cat")), .equal, 105)])
        #expect(try store.query(cat105).documents.count == 40)
        // `in` on the field ordered on: one single-field index range per value serves it.
        let inOrdered = StructuredQuery(todos, filters: [Filter(n, .in, [4105, 3, 7000])], orderBy: [Order(n)])
        #expect(try store.query(inOrdered).documents.map(\.id) == ["t3", "t4105"])
    }

    /// `cat in [105, 106] order by n limit 3` walks the `n` index through the 4100 `cat == 7` documents first; the
    /// error names `(cat ASC, n ASC)`, and with it declared the query reads one range per value, merged.
    @Test(arguments: EngineUnderTest.all)
    func anInQueryGetsAWorkingDefinition(_ engine: EngineUnderTest) throws {
        let harness = try Self.store(engine, log: LogLines())
        let store = harness.store
        let inQuery = StructuredQuery(
            .collection(try col("todos")), filters: [Filter(.field(try field("cat")), .in, [105, 106])],
            orderBy: [Order(.field(try field("n")))], limit: 3)
        #expect(try store.explain(inQuery).rowsExamined > 4100)
        let message = Self.refusal { _ = try store.query(inQuery) }
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
        #expect(try store.count(inQuery) == 3)
        let explanation = try store.explain(inQuery)
        #expect(explanation.compositeIndexID != nil)
        #expect(explanation.index.contains("2 ranges merged"))
        #expect(explanation.rowsReturned == 3)
        #expect(explanation.rowsExamined <= 3 + 2)
    }

    @Test(arguments: EngineUnderTest.all)
    func autoCreateBuildsTheSuggestedIndex(_ engine: EngineUnderTest) throws {
        let log = LogLines()
        let harness = try Self.store(engine, autoCreate: true, log: log)
        let store = harness.store
        let query = try MissingIndexData.query()
        #expect(try store.query(query).documents.map(\.id) == ["t4099", "t4098"])
        store.waitForIndexJobs()
        #expect(store.compositeIndexes.map(\.index.description) == ["todos (cat ASC, n DESC) COLLECTION"])
        #expect(store.compositeIndexes.first?.state == .ready)
        #expect(log.all.contains { $0.hasPrefix("indexes.autoCreate: created index") })
        #expect(try store.explain(query).compositeIndexID != nil)
    }

    @Test(arguments: EngineUnderTest.all)
    func autoCreateBuildsTheIndexOfAnArrayContainsAnyQuery(_ engine: EngineUnderTest) throws {
        let log = LogLines()
        let harness = try Self.store(engine, autoCreate: true, log: log)
        let store = harness.store
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
}
