import Foundation
import KuraCore
import KuraModel
import KuraPostgresEngine
import KuraStore
import KuraStoreTestSupport
import KuraTestSupport
import Testing

/// `maxScanRows` on PostgreSQL beyond the engines' shared rule (KuraStoreTests' ConformanceMissingIndexTests): the
/// merge's own explanation, and builds that resume after a restart.
@Suite(TestPostgres.available)
struct PostgresMissingIndexTests {
    /// `MissingIndexData` in a store refusing more than 50 wasted rows.
    static func store(url: String? = nil) throws -> PostgresDocumentStore {
        let store = try PostgresDocumentStore(
            database: PostgresDatabase(url: url ?? TestPostgres.freshDatabase(), poolSize: 4),
            configuration: .init(maxScanRows: 50))
        try MissingIndexData.load(into: store)
        return store
    }

    /// A merged `in` query's explanation has a line per range: the rows its statement fetched and those the merge
    /// took.
    @Test func aMergedQueryExplainsEachRange() throws {
        let store = try Self.store()
        defer { store.close() }
        let inQuery = StructuredQuery(
            .collection(try col("todos")), filters: [Filter(.field(try field("cat")), .in, [105, 106])],
            orderBy: [Order(.field(try field("n")))], limit: 3)
        try store.createIndex(try #require(CompositeIndex.suggested(for: try NormalizedQuery(inQuery))))
        store.waitForIndexJobs()
        let explanation = try store.explain(inQuery)
        #expect(explanation.index.contains("2 ranges merged"))
        #expect(explanation.plan.contains { $0.hasPrefix("range 1: fetched 3 rows, merge took ") })
    }

    @Test func indexesSurviveARestartAndResumeTheirBuild() throws {
        let url = try TestPostgres.freshDatabase()
        let query = try MissingIndexData.query()
        do {
            let store = try Self.store(url: url)
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
