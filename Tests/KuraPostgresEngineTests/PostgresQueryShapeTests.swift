import Foundation
import KuraCore
import KuraModel
import KuraStore
import KuraStoreTestSupport
import KuraTestSupport
import Testing

@testable import KuraPostgresEngine

/// How the PostgreSQL engine's statements read (`PostgresQueryPlan`): a walk the missing-index rule would refuse
/// stops at its budget, the document tables get statistics without waiting for autovacuum, and a merge of
/// composite ranges is one statement.
@Suite(TestPostgres.available)
struct PostgresQueryShapeTests {
    /// `cat == 7 order by n desc limit 2` on `MissingIndexData` walks the 2000 documents with the
    /// largest `n` (none has `cat == 7`) before its first result: cut after 53 rows, the walk returns nothing;
    /// uncut, the two results. So a refused query reads about `maxScanRows` rows, not the rest of the index.
    @Test func aWalkUnderTheMissingIndexRuleStopsAtItsBudget() throws {
        let store = try PostgresMissingIndexTests.store()
        defer { store.close() }
        let query = try NormalizedQuery(MissingIndexData.query())
        let plan = try PostgresQueryPlan(query)
        try store.pool.withConnection { connection in
            let (cut, cutBindings) = plan.select(budget: 53)
            #expect(cut != plan.sql)
            #expect(try connection.query(cut, cutBindings, resultFormat: .binary).rowCount == 0)
            let (whole, bindings) = plan.select(budget: nil)
            #expect(try connection.query(whole, bindings, resultFormat: .binary).rowCount == 2)
            let (enough, enoughBindings) = plan.select(budget: 2003)
            let rows = try connection.query(enough, enoughBindings, resultFormat: .binary)
            #expect((0..<rows.rowCount).map { rows.string($0, 0) } == ["t4099", "t4098"])
        }
        #expect(PostgresDocumentStore.walkBudget(store.scanPolicy(query), query) == 53)
    }

    /// Documents loaded in bulk have no statistics until autovacuum's next round; queries find that out and
    /// have the tables analyzed.
    @Test func queriesHaveStaleStatisticsRefreshed() throws {
        let store = try PostgresMissingIndexTests.store()
        defer { store.close() }
        func analyzed() throws -> Bool {
            try store.pool.withConnection { connection in
                let rows = try connection.query(
                    "SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables WHERE relid = 'idx'::regclass")
                return rows.string(0, 0) == "t"
            }
        }
        let query = StructuredQuery(.collection(try col("todos")), limit: 1)
        // Up to two minutes: the ANALYZE jobs of every store in this process share one queue, and with the other
        // PostgreSQL suites running beside this one on a loaded machine it can take a while to come to this one.
        var attempts = 0
        while try !analyzed() && attempts < 240 {
            _ = try store.query(query)
            Thread.sleep(forTimeInterval: 0.5)
            attempts += 1
        }
        #expect(try analyzed())
    }

    /// A composite range is prepared with its limit written out, so PostgreSQL settles on one generic plan
    /// instead of planning each execution again (which it does for `LIMIT $n`).
    @Test func aCompositeRangeSettlesOnAGenericPlan() throws {
        let store = try PostgresDocumentStore(
            database: PostgresDatabase(url: try TestPostgres.freshDatabase(), poolSize: 1))
        defer { store.close() }
        let items = try col("items")
        _ = try store.commit(
            try (0..<50).map { i in
                Write(
                    path: try items.document("i\(i)"),
                    operation: .set(["cat": .int(Int64(i % 3)), "n": .int(Int64(i))], merge: false))
            })
        let query = StructuredQuery(
            .collection(items), filters: [Filter(.field(try field("cat")), .equal, 1)],
            orderBy: [Order(.field(try field("n")), descending: true)], limit: 5)
        try store.createIndex(try #require(CompositeIndex.suggested(for: try NormalizedQuery(query))))
        store.waitForIndexJobs()
        for _ in 0..<8 { #expect(try store.query(query).documents.map(\.id) == ["i49", "i46", "i43", "i40", "i37"]) }
        let generic = try store.pool.withConnection { connection in
            try connection.query(
                "SELECT coalesce(max(generic_plans), 0) FROM pg_prepared_statements WHERE statement LIKE '%cidx x%'",
                resultFormat: .binary
            ).int(0, 0) ?? 0
        }
        #expect(generic > 0)
    }

    @Test func parametersOfAMergedBranchAreRenumbered() {
        #expect(
            PostgresDisjunctionPlan.renumbered("a = $1 AND b IN ($2, $10) LIMIT $3", by: 4)
                == "a = $5 AND b IN ($6, $14) LIMIT $7")
        #expect(PostgresDisjunctionPlan.renumbered("x < $2", by: 0) == "x < $2")
        #expect(PostgresDisjunctionPlan.renumbered("$1", by: 1) == "$2")
    }
}
