import Foundation
import KuraCore
import KuraModel
import KuraPostgresEngine
import KuraStore
import KuraStoreTestSupport
import KuraTestSupport
import Testing

/// `maxScanRows` on PostgreSQL (the SQLite engine's MissingIndexTests, same data and expectations): a query a
/// composite index would serve, examining too many rows it does not return, fails with the index to declare.
@Suite(TestPostgres.available)
struct PostgresMissingIndexTests {
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    /// 6100 documents `t<n>`: `cat == 7` on the 4100 with the smallest `n`, `cat` in 100…149 on the others.
    static func store(url: String? = nil, autoCreate: Bool = false, log: Lines) throws -> PostgresDocumentStore {
        let store = try PostgresDocumentStore(
            database: PostgresDatabase(url: url ?? TestPostgres.freshDatabase(), poolSize: 4),
            configuration: .init(maxScanRows: 50, autoCreateIndexes: autoCreate, log: { log.append($0) }))
        let writes = try (0..<6100).map { i -> Write in
            let cat: Int64 = i < 4100 ? 7 : Int64(100 + i % 50)
            return Write(
                path: try doc("todos/t\(i)"), operation: .set(["cat": .int(cat), "n": .int(Int64(i))], merge: false))
        }
        for chunk in stride(from: 0, to: writes.count, by: 500) {
            _ = try store.commit(Array(writes[chunk..<min(chunk + 500, writes.count)]))
        }
        return store
    }

    /// `cat == 7 order by n desc limit 2`.
    static func query() throws -> StructuredQuery {
        StructuredQuery(
            .collection(try col("todos")), filters: [Filter(.field(try field("cat")), .equal, 7)],
            orderBy: [Order(.field(try field("n")), descending: true)], limit: 2)
    }

    @Test func theErrorCarriesAWorkingDefinition() throws {
        let log = Lines()
        let store = try Self.store(log: log)
        defer { store.close() }
        let query = try Self.query()
        #expect(try store.explain(query).rowsExamined > 50)
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
        #expect(try store.count(query) == 2)
        #expect(message.contains("todos (cat ASC, n DESC) COLLECTION"))
        #expect(log.all.filter { $0.hasPrefix("missing index") }.count == 1)
        let definition = try #require(message.range(of: "{").map { String(message[$0.lowerBound...]) })
        for index in try CompositeIndex.parseFile(Array("{\"indexes\":[\(definition)]}".utf8)) {
            try store.createIndex(index)
        }
        store.waitForIndexJobs()
        #expect(try store.query(query).documents.map(\.id) == ["t4099", "t4098"])
        #expect(try store.count(all) == 4100)
        let explanation = try store.explain(query)
        #expect(explanation.compositeIndexID != nil)
        #expect(explanation.rowsExamined == 2)
        #expect(explanation.rowsReturned == 2)
    }

    @Test func queriesNoCompositeIndexHelpsAreNeverRefused() throws {
        let store = try Self.store(log: Lines())
        defer { store.close() }
        let n = QueryField.field(try field("n"))
        let todos = StructuredQuery.Source.collection(try col("todos"))
        #expect(try store.query(StructuredQuery(todos, orderBy: [Order(n)])).documents.count == 6100)
        #expect(try store.count(StructuredQuery(todos)) == 6100)
        #expect(try store.query(StructuredQuery(todos, filters: [Filter(n, .greaterThan, 3)])).documents.count == 6096)
        let inQuery = StructuredQuery(
            todos, filters: [Filter(.field(try field("cat")), .in, [105, 106])], orderBy: [Order(n)], limit: 3)
        #expect(try store.query(inQuery).documents.map(\.id) == ["t4105", "t4106", "t4155"])
        #expect(try store.explain(inQuery).rowsExamined > 4100)
    }

    @Test func autoCreateBuildsTheSuggestedIndex() throws {
        let log = Lines()
        let store = try Self.store(autoCreate: true, log: log)
        defer { store.close() }
        let query = try Self.query()
        #expect(try store.query(query).documents.map(\.id) == ["t4099", "t4098"])
        store.waitForIndexJobs()
        #expect(store.compositeIndexes.map(\.index.description) == ["todos (cat ASC, n DESC) COLLECTION"])
        #expect(store.compositeIndexes.first?.state == .ready)
        #expect(try store.explain(query).compositeIndexID != nil)
    }

    @Test func indexesSurviveARestartAndResumeTheirBuild() throws {
        let url = try TestPostgres.freshDatabase()
        let query = try Self.query()
        do {
            let store = try Self.store(url: url, log: Lines())
            try store.createIndex(try #require(CompositeIndex.suggested(for: try NormalizedQuery(query))))
            store.close()  // perhaps mid-build: the build resumes on the next open
        }
        let store = try PostgresDocumentStore(database: PostgresDatabase(url: url, poolSize: 2))
        defer { store.close() }
        store.waitForIndexJobs()
        #expect(store.compositeIndexes.first?.state == .ready)
        #expect(try store.query(query).documents.map(\.id) == ["t4099", "t4098"])
        #expect(try store.explain(query).compositeIndexID != nil)
    }
}
