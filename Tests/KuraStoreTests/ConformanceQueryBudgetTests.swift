import Foundation
import KuraCore
import KuraModel
import KuraStore
import KuraStoreTestSupport
import Testing

/// Conformance: a query's work budget (`StructuredQuery.budget`, `QueryBudget`). Every engine charges the rows its
/// walk examines, at `QueryBudget.perDocument` units each, and refuses with 429 `RESOURCE_EXHAUSTED` the query
/// that would examine more than its budget pays for; one budget spans several queries.
@Suite struct ConformanceQueryBudgetTests {
    /// 300 documents `items/d<n>` with `tags: [n, n + 1]` and `n`.
    static func store(_ engine: EngineUnderTest) throws -> StoreHarness {
        let harness = try engine.make()
        let writes = try (0..<300).map { i -> Write in
            Write(
                path: try doc("items/d\(i)"),
                operation: .set(
                    ["tags": .array([.int(Int64(i)), .int(Int64(i + 1))]), "n": .int(Int64(i))], merge: false))
        }
        _ = try harness.store.commit(writes)
        return harness
    }

    /// `tags in [[-1, -2], [-3, -4]]`: matches nothing, so a walk examines every document.
    static func noMatch(_ budget: QueryBudget?, count: Bool = false) throws -> StructuredQuery {
        var query = StructuredQuery(
            .collection(try col("items")),
            filters: [Filter(.field(try field("tags")), .in, [.array([-1, -2]), .array([-3, -4])])],
            limit: count ? nil : 10)
        query.budget = budget
        return query
    }

    @Test(arguments: EngineUnderTest.all)
    func aWalkPastTheBudgetIsRefused(_ engine: EngineUnderTest) throws {
        let harness = try Self.store(engine)
        let store = harness.store
        expectError(.resourceExhausted, status: 429) { _ = try store.query(Self.noMatch(QueryBudget(limit: 100))) }
        expectError(.resourceExhausted, status: 429) {
            _ = try store.count(Self.noMatch(QueryBudget(limit: 100), count: true))
        }
        // Without a budget, or with room for the walk, the same query runs, and the rows it examined are charged.
        #expect(try store.query(Self.noMatch(nil)).documents.isEmpty)
        let roomy = QueryBudget(limit: 10_000)
        #expect(try store.query(Self.noMatch(roomy)).documents.isEmpty)
        #expect(roomy.spent >= 300 && !roomy.isExhausted)
        let counted = QueryBudget(limit: 10_000)
        #expect(try store.count(Self.noMatch(counted, count: true)) == 0)
        #expect(counted.spent >= 300)
    }

    @Test(arguments: EngineUnderTest.all)
    func oneBudgetSpansSeveralQueries(_ engine: EngineUnderTest) throws {
        let harness = try Self.store(engine)
        let store = harness.store
        let budget = QueryBudget(limit: 1000)
        #expect(try store.query(Self.noMatch(budget)).documents.isEmpty)
        #expect(try store.query(Self.noMatch(budget)).documents.isEmpty)
        expectError(.resourceExhausted, status: 429) {
            for _ in 0..<10 { _ = try store.query(Self.noMatch(budget)) }
        }
    }

    @Test("larger filter values cost more per document")
    func costGrowsWithFilterBytes() throws {
        let small = try NormalizedQuery(Self.noMatch(nil))
        #expect(QueryBudget.perDocument(small) == 1)
        let big = [JSONValue](repeating: .string(String(repeating: "x", count: 1000)), count: 10)
        let large = try NormalizedQuery(
            StructuredQuery(
                .collection(try col("items")), filters: [Filter(.field(try field("tags")), .in, .array(big))]))
        #expect(QueryBudget.perDocument(large) == 1 + 10_031 / 1024)  // ["x…","x…",…]: 10,031 bytes
    }
}
