import Foundation
import KuraCore
import KuraModel
import KuraStore
import KuraStoreTestSupport
import Testing

/// Conformance: composite indexes give exactly the results of the unindexed path, for every query shape, walked
/// forwards (the suggested index) and backwards (the same index with every direction flipped).
@Suite struct ConformanceCompositeIndexTests {
    /// 240 documents `items/d000…` (plus a few in nested `items` collections) with `cat`, `n` (distinct, missing
    /// on some), `v` of every type, `tags` (an array, a string on some) and `flag`.
    static func seeded(_ engine: EngineUnderTest) throws -> StoreHarness {
        let h = try engine.make()
        var writes: [Write] = []
        for i in 0..<240 {
            var fields: JSONObject = ["cat": .int(Int64(i % 4)), "flag": .bool(i % 2 == 0)]
            if i % 23 != 0 { fields["n"] = .int(Int64(i * 7 % 240)) }
            let values: [JSONValue] = [
                .null, .bool(i % 4 == 0), .int(Int64(i)), .double(Double(i) + 0.5), .string("s\(i % 10)"),
                .array([.int(Int64(i % 3))]),
            ]
            fields["v"] = values[i % 6]
            fields["tags"] = i % 11 == 0 ? "t1" : .array([.string("t\(i % 3)"), .string("t\(i % 5)")])
            let id = String(format: "d%03d", (i * 37) % 240)
            let collection = i % 30 == 0 ? "groups/g\(i % 4)/items" : "items"
            writes.append(Write(path: try doc("\(collection)/\(id)"), operation: .set(fields, merge: false)))
        }
        for chunk in stride(from: 0, to: writes.count, by: 100) {
            _ = try h.store.commit(Array(writes[chunk..<min(chunk + 100, writes.count)]))
        }
        return h
    }

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
            q([Filter(cat, .equal, 1)], [Order(n)]),
            q([Filter(cat, .equal, 1)], [Order(n, descending: true)]),
            q([Filter(cat, .equal, 2), Filter(n, .greaterThan, 50), Filter(n, .lessThanOrEqual, 180)]),
            q([Filter(cat, .equal, 2), Filter(n, .greaterThanOrEqual, 100)], [Order(n, descending: true)]),
            q([Filter(cat, .equal, 3)], [Order(n)], limit: 5),
            q(
                [Filter(cat, .equal, 3)], [Order(n, descending: true)], start: Cursor(values: [100], inclusive: true),
                end: Cursor(values: [20], inclusive: false)),
            q([Filter(cat, .equal, 0)], [Order(v)]),
            q([Filter(cat, .equal, 0)], [Order(v, descending: true)], limit: 9),
            q([Filter(tags, .arrayContains, "t1")], [Order(n, descending: true)]),
            q([Filter(tags, .arrayContains, "t2"), Filter(cat, .equal, 1)], [Order(n)]),
            q([Filter(cat, .equal, 1), Filter(flag, .equal, true)]),
            q([Filter(cat, .equal, 1), Filter(flag, .equal, false)], [Order(.id, descending: true)]),
            q([Filter(cat, .equal, 2)], [Order(cat), Order(n)], start: Cursor(values: [2, 50], inclusive: false)),
            q([Filter(cat, .equal, 2)], [Order(cat), Order(n)], start: Cursor(values: [1], inclusive: true)),
            q([Filter(cat, .equal, 2)], [Order(cat), Order(n)], start: Cursor(values: [3], inclusive: true)),
            q([Filter(cat, .equal, 2)], [Order(cat), Order(n)], end: Cursor(values: [1], inclusive: true)),
            q([Filter(cat, .equal, 1), Filter(n, .notEqual, 7)], [Order(n)]),
            q([Filter(cat, .equal, 1)], [Order(n)], start: Cursor(values: [57, "d100"], inclusive: false)),
            q([Filter(cat, .equal, 1)], [Order(n)], end: Cursor(values: [150, "d200"], inclusive: true)),
            q([Filter(cat, .equal, 1)], [Order(n, descending: true)], source: .collectionGroup("items")),
            q([Filter(cat, .equal, 1), Filter(n, .lessThan, 100)], start: Cursor(values: [40], inclusive: false)),
            q([Filter(cat, .equal, 0), Filter(v, .greaterThan, "s3")]),
            q([Filter(cat, .equal, 0), Filter(v, .lessThan, 50)], [Order(v, descending: true)]),
            q([Filter(cat, .equal, 3), Filter(v, .greaterThanOrEqual, false)], [Order(v)]),
        ]
    }

    /// Every page of `query` (pages of 7 through page tokens), as IDs with their collection.
    static func pages(_ store: any DocumentStore, _ query: StructuredQuery) throws -> [String] {
        var paged = query
        paged.limit = 7
        var out: [String] = []
        while true {
            let page = try store.query(paged)
            out += page.documents.map(\.path.description)
            guard let token = page.nextPageToken else { return out }
            paged.pageToken = token
        }
    }

    static func flipped(_ index: CompositeIndex) throws -> CompositeIndex {
        let fields = index.fields.map { field in
            CompositeIndex.Field(
                field.path,
                field.mode == .contains ? .contains : field.mode == .ascending ? .descending : .ascending)
        }
        return try CompositeIndex(
            collectionGroup: index.collectionGroup, scope: index.scope, fields: fields,
            nameDescending: !index.nameDescending)
    }

    @Test(arguments: EngineUnderTest.all)
    func everyShapeGivesTheUnindexedResults(_ engine: EngineUnderTest) throws {
        let h = try Self.seeded(engine)
        guard let indexing = h.store as? any CompositeIndexing else { return }
        let shapes = try Self.shapes()
        let expected = try shapes.map { try h.store.query($0).documents.map(\.path.description) }
        let expectedPages = try shapes.map { try Self.pages(h.store, $0) }
        let expectedCounts = try shapes.map { try h.store.count($0) }
        #expect(expected.contains { $0.count > 3 })
        let suggestions = try shapes.map { query -> CompositeIndex in
            let index = CompositeIndex.suggested(for: try NormalizedQuery(query))
            #expect(index != nil, "no index suggested for \(query.filters) \(query.orderBy)")
            return try #require(index)
        }
        for phase in ["suggested", "flipped"] {
            for status in indexing.compositeIndexes { _ = indexing.dropIndex(id: status.id) }
            for index in suggestions { try indexing.createIndex(phase == "flipped" ? Self.flipped(index) : index) }
            indexing.waitForIndexJobs()
            #expect(indexing.compositeIndexes.allSatisfy { $0.state == .ready })
            for (position, query) in shapes.enumerated() {
                let explanation = try indexing.explain(query)
                #expect(explanation.compositeIndexID != nil, "\(phase) #\(position): \(explanation.index)")
                let got = try h.store.query(query).documents.map(\.path.description)
                #expect(got == expected[position], "\(phase) #\(position)")
                #expect(try Self.pages(h.store, query) == expectedPages[position], "\(phase) pages #\(position)")
                #expect(try h.store.count(query) == expectedCounts[position], "\(phase) count #\(position)")
                if !query.filters.contains(where: { $0.op == .notEqual }) {
                    // Only the entries returned are read.
                    #expect(explanation.rowsExamined == explanation.rowsReturned, "\(phase) #\(position)")
                }
            }
        }
    }

    @Test(arguments: EngineUnderTest.all)
    func writesKeepTheIndex(_ engine: EngineUnderTest) throws {
        let h = try Self.seeded(engine)
        guard let indexing = h.store as? any CompositeIndexing else { return }
        let query = try Self.shapes()[1]
        try indexing.createIndex(try #require(CompositeIndex.suggested(for: try NormalizedQuery(query))))
        indexing.waitForIndexJobs()
        try h.store.set(doc("items/new1"), object(["cat": 1, "n": 500, "tags": ["t1"]]))
        try h.store.update(doc("items/d037"), [(try field("cat"), 1), (try field("n"), 499)])
        try h.store.update(doc("items/d074"), [(try field("cat"), 1), (try field("n"), .string("now a string"))])
        try h.store.delete(doc("items/d111"))
        let indexed = try h.store.query(query).documents.map(\.id)
        #expect(try indexing.explain(query).compositeIndexID != nil)
        for status in indexing.compositeIndexes { _ = indexing.dropIndex(id: status.id) }
        indexing.waitForIndexJobs()
        #expect(try indexing.explain(query).compositeIndexID == nil)
        #expect(indexed == (try h.store.query(query).documents.map(\.id)))
        #expect(indexed.prefix(3) == ["d074", "new1", "d037"])
        #expect(!indexed.contains("d111"))
    }

    /// Writes acknowledged while an index is being built (new documents, documents moved into the query's
    /// results, deleted ones) are all reflected once it is READY, whichever of the build and the writes is faster:
    /// the test keeps writing until the build ends, and its writes never run out before a generous bound.
    @Test(arguments: EngineUnderTest.all)
    func buildWhileWritesContinue(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        guard let indexing = h.store as? any CompositeIndexing else { return }
        let items = try col("items")
        let seeded = 20_000
        for chunk in 0..<(seeded / 500) {
            let writes = try (0..<500).map { i -> Write in
                let k = chunk * 500 + i
                return Write(
                    path: try items.document("b\(k)"),
                    operation: .set(object(["cat": .int(Int64(k % 100)), "n": .int(Int64(k))]), merge: false))
            }
            _ = try h.store.commit(writes)
        }
        let query = StructuredQuery(
            .collection(items), filters: [Filter(.field(try field("cat")), .equal, 7)],
            orderBy: [Order(.field(try field("n")), descending: true)])
        let index = try #require(CompositeIndex.suggested(for: try NormalizedQuery(query)))
        // The matches by ID with their `n`, kept up to date with every write below.
        var expected: [String: Int] = [:]
        for k in 0..<seeded where k % 100 == 7 { expected["b\(k)"] = k }
        // Round r adds w<r> (cat 7), moves b<r> to cat 7 and deletes b<10000 + r>: the two halves of the seeded
        // documents last 10 000 rounds, far more than any build of 20 000 documents takes.
        let rounds = seeded / 2
        var round = 0
        var acknowledgedWhileCreating = 0
        func isCreating() -> Bool { indexing.compositeIndexes.contains { $0.state == .creating } }
        // A build that ended before a single write was acknowledged tested nothing: build it again (each attempt
        // starts while the writes continue).
        for _ in 0..<3 where acknowledgedWhileCreating == 0 && round < rounds {
            for status in indexing.compositeIndexes { _ = indexing.dropIndex(id: status.id) }
            indexing.waitForIndexJobs()
            try indexing.createIndex(index)
            while isCreating() && round < rounds {
                let n = seeded + round
                try h.store.set(items.document("w\(round)"), object(["cat": 7, "n": .int(Int64(n))]))
                try h.store.update(items.document("b\(round)"), [(try field("cat"), 7)])
                try h.store.delete(items.document("b\(rounds + round)"))
                expected["w\(round)"] = n
                expected["b\(round)"] = round
                expected["b\(rounds + round)"] = nil
                if isCreating() { acknowledgedWhileCreating += 1 }
                round += 1
            }
        }
        #expect(acknowledgedWhileCreating > 0)
        // The writes stop at the bound; the build must still end (a safety timeout that only a stuck build hits).
        let deadline = ContinuousClock.now + .seconds(600)
        while isCreating() && ContinuousClock.now < deadline { usleep(10_000) }
        indexing.waitForIndexJobs()
        #expect(indexing.compositeIndexes.map(\.state) == [.ready])
        let explanation = try indexing.explain(query)
        #expect(explanation.compositeIndexID != nil)
        let indexed = try h.store.query(query).documents.map(\.id)
        let wanted = expected.sorted { $0.value > $1.value }.map(\.key)
        #expect(indexed.count == wanted.count)
        let firstDifference = zip(indexed, wanted).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(indexed == wanted, "first difference at \(firstDifference ?? -1)")
        for status in indexing.compositeIndexes { _ = indexing.dropIndex(id: status.id) }
        indexing.waitForIndexJobs()
        #expect(try indexing.explain(query).compositeIndexID == nil)
        #expect(indexed == (try h.store.query(query).documents.map(\.id)))
    }
}
