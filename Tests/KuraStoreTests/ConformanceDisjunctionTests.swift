import Foundation
import KuraCore
import KuraModel
import KuraStore
import KuraStoreTestSupport
import Testing

/// Conformance: `in` and `array-contains-any` on a field a composite index pins are answered from one range per
/// value, merged in order, with exactly the results, pages and counts of the unindexed path (forwards and
/// backwards), reading about the entries returned.
@Suite struct ConformanceDisjunctionTests {
    static func shapes() throws -> [StructuredQuery] {
        let items = StructuredQuery.Source.collection(try col("items"))
        let cat = QueryField.field(try field("cat"))
        let n = QueryField.field(try field("n"))
        let v = QueryField.field(try field("v"))
        let tags = QueryField.field(try field("tags"))
        let flag = QueryField.field(try field("flag"))
        func q(
            _ filters: [Filter], _ orders: [Order] = [], limit: Int? = nil, start: Cursor? = nil, end: Cursor? = nil,
            source: StructuredQuery.Source? = nil
        ) -> StructuredQuery {
            StructuredQuery(source ?? items, filters: filters, orderBy: orders, limit: limit, start: start, end: end)
        }
        return [
            q([Filter(cat, .in, [1, 3])], [Order(n)]),
            q([Filter(cat, .in, [3, 1, 2])], [Order(n, descending: true)], limit: 9),
            q([Filter(cat, .in, [0, 2]), Filter(n, .greaterThan, 50), Filter(n, .lessThanOrEqual, 180)]),
            q(
                [Filter(cat, .in, [1, 2])], [Order(n, descending: true)],
                start: Cursor(values: [100], inclusive: true), end: Cursor(values: [20], inclusive: false)),
            q([Filter(cat, .in, [1, 2])], [Order(n)], start: Cursor(values: [57, "d100"], inclusive: false)),
            // Repeated values (1 and 1.0 are one value) and a value nothing has.
            q([Filter(cat, .in, [1, 1.0, 3, 1, "x"])], [Order(n)], limit: 11),
            // The split field is also a sort key: the ranges follow one another, cursors cut across them.
            q(
                [Filter(cat, .in, [2, 0, 3])], [Order(cat), Order(n)], start: Cursor(values: [2, 50], inclusive: false)),
            q([Filter(cat, .in, [2, 0, 3])], [Order(cat, descending: true), Order(n, descending: true)], limit: 30),
            q([Filter(cat, .in, [2, 0])], [Order(cat), Order(n)], end: Cursor(values: [0], inclusive: true)),
            // Ordered by a field of mixed types; split on values of mixed types.
            q([Filter(cat, .in, [0, 3])], [Order(v)]),
            q([Filter(cat, .in, [0, 1, 2, 3])], [Order(v, descending: true)], limit: 25),
            q([Filter(v, .in, [.null, true, 5, 12.5, "s3", [1], "zzz", false])], [Order(n)]),
            // No orderBy: the ranges merge by ID.
            q([Filter(cat, .in, [1, 2]), Filter(flag, .equal, true)]),
            q([Filter(cat, .in, [0, 1]), Filter(flag, .equal, false)], [Order(.id, descending: true)]),
            // Filters checked per entry: `!=`, a second `in`.
            q([Filter(cat, .in, [0, 1]), Filter(n, .notEqual, 7)], [Order(n)]),
            q([Filter(cat, .in, [1, 2, 3]), Filter(flag, .in, [true])], [Order(n, descending: true)]),
            // array-contains-any: a document with several of the values is returned once.
            q([Filter(tags, .arrayContainsAny, ["t1", "t2"])], [Order(n, descending: true)]),
            q(
                [Filter(tags, .arrayContainsAny, ["t0", "t1", "t4", "t0"]), Filter(cat, .equal, 1)], [Order(n)],
                limit: 5),
            q(
                [Filter(tags, .arrayContainsAny, ["t2", "t3", "nothing"]), Filter(flag, .equal, false)],
                [Order(.id, descending: true)]),
            q(
                [Filter(tags, .arrayContainsAny, ["t1", "t4"])], [Order(n)],
                start: Cursor(values: [60], inclusive: true)),
            // Collection groups.
            q([Filter(cat, .in, [0, 2])], [Order(n, descending: true)], source: .collectionGroup("items")),
            q(
                [Filter(tags, .arrayContainsAny, ["t0", "t2"])], [Order(n)], limit: 13,
                source: .collectionGroup("items")),
        ]
    }

    /// Entries a merge may read beyond those it returns: one ahead per range, plus, for `array-contains-any`,
    /// a document's further entries (one per other value its array holds).
    static func allowance(_ query: StructuredQuery, returned: Int64) -> Int64 {
        guard let split = query.filters.first(where: { $0.op == .in || $0.op == .arrayContainsAny }) else { return 0 }
        let values = Int64(split.value.arrayValue?.count ?? 0)
        return split.op == .arrayContainsAny ? values + returned * (values - 1) : values
    }

    @Test(arguments: EngineUnderTest.all)
    func everyShapeGivesTheUnindexedResults(_ engine: EngineUnderTest) throws {
        let h = try ConformanceCompositeIndexTests.seeded(engine)
        guard let indexing = h.store as? any CompositeIndexing else { return }
        let shapes = try Self.shapes()
        let expected = try shapes.map { try h.store.query($0).documents.map(\.path.description) }
        let expectedPages = try shapes.map { try ConformanceCompositeIndexTests.pages(h.store, $0) }
        let expectedCounts = try shapes.map { try h.store.count($0) }
        #expect(expected.allSatisfy { !$0.isEmpty })
        #expect(expected.filter { $0.count > 10 }.count > 10)
        for (position, ids) in expected.enumerated() { #expect(Set(ids).count == ids.count, "#\(position)") }
        let suggestions = try shapes.map { query -> CompositeIndex in
            let index = CompositeIndex.suggested(for: try NormalizedQuery(query))
            #expect(index != nil, "no index suggested for \(query.filters) \(query.orderBy)")
            return try #require(index)
        }
        for phase in ["suggested", "flipped"] {
            for status in indexing.compositeIndexes { _ = indexing.dropIndex(id: status.id) }
            for index in suggestions {
                try indexing.createIndex(phase == "flipped" ? ConformanceCompositeIndexTests.flipped(index) : index)
            }
            indexing.waitForIndexJobs()
            #expect(indexing.compositeIndexes.allSatisfy { $0.state == .ready })
            for (position, query) in shapes.enumerated() {
                let explanation = try indexing.explain(query)
                #expect(explanation.compositeIndexID != nil, "\(phase) #\(position): \(explanation.index)")
                #expect(explanation.index.contains("ranges"), "\(phase) #\(position): \(explanation.index)")
                let got = try h.store.query(query).documents.map(\.path.description)
                #expect(got == expected[position], "\(phase) #\(position)")
                #expect(
                    try ConformanceCompositeIndexTests.pages(h.store, query) == expectedPages[position],
                    "\(phase) pages #\(position)")
                #expect(try h.store.count(query) == expectedCounts[position], "\(phase) count #\(position)")
                #expect(explanation.rowsReturned == Int64(expected[position].count))
                let checked = query.filters.filter { $0.op == .notEqual || $0.op == .in }.count
                if checked <= 1 {
                    // About the entries returned: at most one more per range (and array-contains-any's repeats).
                    let slack = Self.allowance(query, returned: explanation.rowsReturned)
                    #expect(explanation.rowsExamined >= explanation.rowsReturned, "\(phase) #\(position)")
                    #expect(
                        explanation.rowsExamined <= explanation.rowsReturned + slack,
                        "\(phase) #\(position): \(explanation.rowsExamined) for \(explanation.rowsReturned)")
                }
            }
        }
    }

    /// With a limit, the merge stops: an `in` over values common in the whole collection reads the page and at
    /// most one entry more per range; `array-contains-any` reads each returned document once per value it has.
    @Test(arguments: EngineUnderTest.all)
    func aLimitedMergeReadsAboutThePage(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        guard let indexing = h.store as? any CompositeIndexing else { return }
        let items = try col("items")
        let writes = try (0..<2000).map { i -> Write in
            let fields: JSONObject = [
                "cat": .int(Int64(i % 10)), "n": .int(Int64(i)), "tags": [.string("a\(i % 3)"), .string("b\(i % 2)")],
            ]
            return Write(path: try items.document("x\(i)"), operation: .set(fields, merge: false))
        }
        for chunk in stride(from: 0, to: writes.count, by: 500) {
            _ = try h.store.commit(Array(writes[chunk..<chunk + 500]))
        }
        let cat = QueryField.field(try field("cat"))
        let n = QueryField.field(try field("n"))
        let inQuery = StructuredQuery(
            .collection(items), filters: [Filter(cat, .in, [3, 7, 9])], orderBy: [Order(n, descending: true)],
            limit: 20)
        let anyQuery = StructuredQuery(
            .collection(items), filters: [Filter(.field(try field("tags")), .arrayContainsAny, ["a1", "b0"])],
            orderBy: [Order(n)], limit: 20)
        let expectedIn = try h.store.query(inQuery).documents.map(\.id)
        let expectedAny = try h.store.query(anyQuery).documents.map(\.id)
        #expect(expectedIn.prefix(4) == ["x1999", "x1997", "x1993", "x1989"])
        #expect(expectedAny.prefix(5) == ["x0", "x1", "x2", "x4", "x6"])
        for query in [inQuery, anyQuery] {
            try indexing.createIndex(try #require(CompositeIndex.suggested(for: try NormalizedQuery(query))))
        }
        indexing.waitForIndexJobs()
        #expect(try h.store.query(inQuery).documents.map(\.id) == expectedIn)
        #expect(try h.store.query(anyQuery).documents.map(\.id) == expectedAny)
        let inExplained = try indexing.explain(inQuery)
        #expect(inExplained.rowsReturned == 20)
        #expect(inExplained.rowsExamined <= 20 + 3)
        let anyExplained = try indexing.explain(anyQuery)
        #expect(anyExplained.rowsReturned == 20)
        // Documents holding both a1 and b0 (i % 6 == 4) have an entry in each range.
        let repeats = Int64(expectedAny.filter { (Int($0.dropFirst()) ?? 0) % 6 == 4 }.count)
        #expect(anyExplained.rowsExamined <= 20 + repeats + 2)
        #expect(try h.store.count(anyQuery) == 20)
        var all = anyQuery
        all.limit = nil
        // i % 3 == 1 or i % 2 == 0: all but the 666 odd ones with i % 3 != 1.
        #expect(try h.store.count(all) == 1334)
    }
}
