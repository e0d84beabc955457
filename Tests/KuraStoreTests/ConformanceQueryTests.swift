import KuraCore
import KuraModel
import KuraStore
import KuraStoreTestSupport
import Testing

/// Conformance: queries — operators, ordering, cursors, pagination, projection, count.
@Suite struct ConformanceQueryTests {
    /// Ten documents `items/i0…i9` with `n = i`, `even`, `tag`, `tags`, and `nested.v`.
    static func seeded(_ engine: EngineUnderTest) throws -> StoreHarness {
        let h = try engine.make()
        var writes: [Write] = []
        for i in 0..<10 {
            let fields = object([
                "n": .int(Int64(i)), "even": .bool(i % 2 == 0), "tag": .string(["a", "b", "c"][i % 3]),
                "tags": .array([.string("t\(i % 2)"), .string("all")]), "nested": ["v": .int(Int64(10 - i))],
            ])
            writes.append(Write(path: try doc("items/i\(i)"), operation: .set(fields, merge: false)))
        }
        _ = try h.store.commit(writes)
        return h
    }

    static func ids(_ store: any DocumentStore, _ query: StructuredQuery) throws -> [String] {
        try store.query(query).documents.map(\.id)
    }

    static func items(_ filters: [Filter] = [], orderBy: [Order] = [], limit: Int? = nil) throws -> StructuredQuery {
        StructuredQuery(.collection(try col("items")), filters: filters, orderBy: orderBy, limit: limit)
    }

    @Test(arguments: EngineUnderTest.all)
    func everyOperator(_ engine: EngineUnderTest) throws {
        let h = try Self.seeded(engine)
        let n = QueryField.field(try field("n"))
        func run(_ f: Filter) throws -> [String] { try Self.ids(h.store, Self.items([f])) }
        #expect(try run(Filter(n, .equal, 3)) == ["i3"])
        #expect(try run(Filter(n, .equal, 3.0)) == ["i3"])
        #expect(try run(Filter(n, .notEqual, 3)) == ["i0", "i1", "i2", "i4", "i5", "i6", "i7", "i8", "i9"])
        #expect(try run(Filter(n, .lessThan, 2)) == ["i0", "i1"])
        #expect(try run(Filter(n, .lessThanOrEqual, 2)) == ["i0", "i1", "i2"])
        #expect(try run(Filter(n, .greaterThan, 7.5)) == ["i8", "i9"])
        #expect(try run(Filter(n, .greaterThanOrEqual, 8)) == ["i8", "i9"])
        #expect(try run(Filter(n, .in, [1, 5, 99])) == ["i1", "i5"])
        #expect(try run(Filter(n, .notIn, [0, 1, 2, 3, 4, 5, 6])) == ["i7", "i8", "i9"])
        let tags = QueryField.field(try field("tags"))
        #expect(try run(Filter(tags, .arrayContains, "t1")) == ["i1", "i3", "i5", "i7", "i9"])
        #expect(try run(Filter(tags, .arrayContainsAny, ["t0", "zz"])) == ["i0", "i2", "i4", "i6", "i8"])
        #expect(try run(Filter(.field(try field("nested.v")), .equal, 10)) == ["i0"])
        #expect(try run(Filter(.field(try field("nested")), .equal, ["v": 9])) == ["i1"])
        #expect(try run(Filter(.id, .equal, "i4")) == ["i4"])
        #expect(try run(Filter(.id, .in, ["i4", "i2"])) == ["i2", "i4"])
        #expect(try run(Filter(.id, .greaterThan, "i7")) == ["i8", "i9"])
    }

    @Test(arguments: EngineUnderTest.all)
    func combinedFilters(_ engine: EngineUnderTest) throws {
        let h = try Self.seeded(engine)
        let query = try Self.items([
            Filter(.field(try field("even")), .equal, true), Filter(.field(try field("tag")), .equal, "a"),
            Filter(.field(try field("n")), .greaterThan, 0),
        ])
        #expect(try Self.ids(h.store, query) == ["i6"])
        let ordered = try Self.items(
            [Filter(.field(try field("even")), .equal, false)], orderBy: [Order(.field(try field("nested.v")))],
            limit: 3)
        #expect(try Self.ids(h.store, ordered) == ["i9", "i7", "i5"])
    }

    @Test(arguments: EngineUnderTest.all)
    func rangesMatchOnlyTheirType(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        let values: [JSONValue] = [
            nil, false, true, -1, 0.5, 2, "", "a", "b", [], [1], .object(JSONObject()), ["a": 1],
        ]
        for (i, value) in values.enumerated() { try h.store.set(doc("mixed/m\(i)"), object(["v": value])) }
        try h.store.set(doc("mixed/none"), object(["other": 1]))
        let v = QueryField.field(try field("v"))
        func vs(_ filters: [Filter], _ orders: [Order] = []) throws -> [JSONValue] {
            try h.store.query(StructuredQuery(.collection(try col("mixed")), filters: filters, orderBy: orders))
                .documents.map {
                    $0.fields["v"] ?? "missing"
                }
        }
        #expect(try vs([], [Order(v)]) == values)
        #expect(try vs([], [Order(v, descending: true)]) == values.reversed())
        #expect(try vs([Filter(v, .greaterThan, 0)]) == [0.5, 2])
        #expect(try vs([Filter(v, .lessThan, "b")]) == ["", "a"])
        #expect(try vs([Filter(v, .greaterThanOrEqual, false)]) == [false, true])
        #expect(try vs([Filter(v, .greaterThan, [])]) == [[1]])
        #expect(try vs([Filter(v, .equal, nil)]) == [nil])
        #expect(try vs([Filter(v, .notEqual, nil)]) == Array(values.dropFirst()))
    }

    @Test(arguments: EngineUnderTest.all)
    func orderingAndImplicitRules(_ engine: EngineUnderTest) throws {
        let h = try Self.seeded(engine)
        let n = QueryField.field(try field("n"))
        let tag = QueryField.field(try field("tag"))
        #expect(
            try Self.ids(h.store, Self.items(orderBy: [Order(n, descending: true)], limit: 3)) == ["i9", "i8", "i7"])
        #expect(
            try Self.ids(h.store, Self.items(orderBy: [Order(tag), Order(n, descending: true)]))
                == ["i9", "i6", "i3", "i0", "i7", "i4", "i1", "i8", "i5", "i2"])
        // Ties on `tag` are broken by id, in the direction of the last orderBy.
        #expect(try Self.ids(h.store, Self.items(orderBy: [Order(tag)], limit: 4)) == ["i0", "i3", "i6", "i9"])
        #expect(try Self.ids(h.store, Self.items(orderBy: [Order(tag, descending: true)], limit: 2)) == ["i8", "i5"])
        #expect(try Self.ids(h.store, Self.items(orderBy: [Order(.id, descending: true)], limit: 2)) == ["i9", "i8"])
        try h.store.set(doc("items/nofield"), object(["other": 1]))
        #expect(try Self.ids(h.store, Self.items(orderBy: [Order(n)])).count == 10)
        #expect(try Self.ids(h.store, Self.items()).count == 11)
    }

    /// A second orderBy key is the document's current value of that field, whichever write put it there (a blind
    /// create, a set, an update), and a document without the field drops out.
    @Test(arguments: EngineUnderTest.all)
    func secondaryOrderKeysFollowWrites(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        for (id, g, k) in [("a", 1, 3), ("b", 1, 1), ("c", 2, 2), ("d", 1, 2)] {
            _ = try h.store.create(
                doc("s/\(id)"), object(["g": .int(Int64(g)), "k": .int(Int64(k)), "m": ["k": .int(Int64(-k))]]))
        }
        _ = try h.store.set(doc("s/e"), object(["g": 1]))
        let g = QueryField.field(try field("g"))
        let k = QueryField.field(try field("k"))
        func ordered(_ orders: [Order]) throws -> [String] {
            try h.store.query(StructuredQuery(.collection(try col("s")), orderBy: orders)).documents.map(\.id)
        }
        #expect(try ordered([Order(g), Order(k)]) == ["b", "d", "a", "c"])
        #expect(try ordered([Order(g), Order(.field(try field("m.k")))]) == ["a", "d", "b", "c"])
        try h.store.update(doc("s/b"), [(field("k"), 9)])
        _ = try h.store.set(doc("s/e"), object(["g": 1, "k": 0]))
        _ = try h.store.delete(doc("s/d"))
        #expect(try ordered([Order(g), Order(k)]) == ["e", "a", "b", "c"])
        #expect(try ordered([Order(g, descending: true), Order(k, descending: true)]) == ["c", "b", "a", "e"])
        #expect(try ordered([Order(k), Order(g)]) == ["e", "c", "a", "b"])
    }

    @Test(arguments: EngineUnderTest.all)
    func metadataOrdering(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        for id in ["c", "a", "b"] { try h.store.set(doc("m/\(id)"), object(["x": 1])) }
        try h.store.update(doc("m/c"), [(field("x"), 2)])
        let m = try col("m")
        #expect(
            try Self.ids(h.store, StructuredQuery(.collection(m), orderBy: [Order(.createTime)])) == ["c", "a", "b"])
        #expect(
            try Self.ids(h.store, StructuredQuery(.collection(m), orderBy: [Order(.updateTime)])) == ["a", "b", "c"])
        let a = try #require(try h.store.get(doc("m/a")))
        let after = Filter(.createTime, .greaterThan, .string(RFC3339.format(a.createTime)))
        #expect(try Self.ids(h.store, StructuredQuery(.collection(m), filters: [after])) == ["b"])
        expectError(.invalidQuery) {
            _ = try h.store.query(StructuredQuery(.collection(m), filters: [Filter(.createTime, .equal, "yesterday")]))
        }
    }

    @Test(arguments: EngineUnderTest.all)
    func cursors(_ engine: EngineUnderTest) throws {
        let h = try Self.seeded(engine)
        let n = QueryField.field(try field("n"))
        let tag = QueryField.field(try field("tag"))
        func run(start: Cursor? = nil, end: Cursor? = nil, _ orders: [Order]) throws -> [String] {
            var query = try Self.items(orderBy: orders)
            query.start = start
            query.end = end
            return try Self.ids(h.store, query)
        }
        #expect(try run(start: Cursor(values: [7], inclusive: true), [Order(n)]) == ["i7", "i8", "i9"])
        #expect(try run(start: Cursor(values: [7], inclusive: false), [Order(n)]) == ["i8", "i9"])
        #expect(try run(end: Cursor(values: [2], inclusive: true), [Order(n)]) == ["i0", "i1", "i2"])
        #expect(try run(end: Cursor(values: [2], inclusive: false), [Order(n)]) == ["i0", "i1"])
        #expect(
            try run(
                start: Cursor(values: [3], inclusive: true), end: Cursor(values: [1], inclusive: false),
                [Order(n, descending: true)]) == ["i3", "i2"])
        // Prefix and full cursors with the implicit id key.
        #expect(try run(start: Cursor(values: ["b"], inclusive: false), [Order(tag)]) == ["i2", "i5", "i8"])
        #expect(
            try run(start: Cursor(values: ["b", "i4"], inclusive: false), [Order(tag)]) == ["i7", "i2", "i5", "i8"])
        expectError(.invalidQuery) { _ = try run(start: Cursor(values: [1, "i1", 3], inclusive: true), [Order(n)]) }
    }

    @Test(arguments: EngineUnderTest.all)
    func paginationStableWhileAdding(_ engine: EngineUnderTest) throws {
        let h = try Self.seeded(engine)
        let n = QueryField.field(try field("n"))
        var query = try Self.items(orderBy: [Order(n)], limit: 4)
        var seen: [String] = []
        var page = 0
        while true {
            let result = try h.store.query(query)
            seen += result.documents.map(\.id)
            // Add one document before the current position and one after it between pages.
            try h.store.set(doc("items/before\(page)"), object(["n": -1]))
            try h.store.set(doc("items/after\(page)"), object(["n": 100]))
            page += 1
            guard let token = result.nextPageToken, page < 20 else { break }
            query.pageToken = token
        }
        #expect(seen.prefix(10) == ["i0", "i1", "i2", "i3", "i4", "i5", "i6", "i7", "i8", "i9"])
        #expect(Set(seen).count == seen.count)
        #expect(seen.dropFirst(10).allSatisfy { $0.hasPrefix("after") })
        var bad = try Self.items(orderBy: [Order(n)], limit: 4)
        bad.pageToken = "zz"
        expectError(.invalidQuery) { _ = try h.store.query(bad) }
    }

    @Test(arguments: EngineUnderTest.all)
    func selectAndCount(_ engine: EngineUnderTest) throws {
        let h = try Self.seeded(engine)
        var query = try Self.items([Filter(.field(try field("even")), .equal, true)], limit: 2)
        query.select = [try field("n"), try field("nested.v")]
        let docs = try h.store.query(query).documents
        #expect(docs.map(\.fields) == [object(["n": 0, "nested": ["v": 10]]), object(["n": 2, "nested": ["v": 8]])])
        #expect(try h.store.count(Self.items([Filter(.field(try field("even")), .equal, true)])) == 5)
        #expect(try h.store.count(Self.items([Filter(.field(try field("n")), .greaterThan, 6)])) == 3)
        #expect(try h.store.count(Self.items(limit: 4)) == 4)
        #expect(try h.store.count(StructuredQuery(.collection(try col("empty")))) == 0)
    }

    @Test(arguments: EngineUnderTest.all)
    func collectionGroups(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        try h.store.set(doc("users/u1/todos/t1"), object(["done": false, "p": 2]))
        try h.store.set(doc("users/u2/todos/t2"), object(["done": true, "p": 1]))
        try h.store.set(doc("users/u2/todos/t3"), object(["done": false, "p": 3]))
        try h.store.set(doc("todos/t4"), object(["done": false, "p": 0]))
        try h.store.set(doc("users/u1/notes/n1"), object(["done": false, "p": 9]))
        let group = StructuredQuery(
            .collectionGroup("todos"), filters: [Filter(.field(try field("done")), .equal, false)],
            orderBy: [Order(.field(try field("p")))])
        #expect(
            try h.store.query(group).documents.map(\.path.description) == [
                "todos/t4", "users/u1/todos/t1", "users/u2/todos/t3",
            ])
        #expect(try h.store.count(group) == 3)
        var paged = StructuredQuery(.collectionGroup("todos"), limit: 1)
        var paths: [String] = []
        while true {
            let result = try h.store.query(paged)
            paths += result.documents.map(\.path.description)
            guard let token = result.nextPageToken else { break }
            paged.pageToken = token
        }
        #expect(Set(paths).count == 4 && paths.count == 4)
    }

    @Test(arguments: EngineUnderTest.all)
    func invalidQueries(_ engine: EngineUnderTest) throws {
        let h = try Self.seeded(engine)
        let a = QueryField.field(try field("a"))
        let b = QueryField.field(try field("b"))
        let tooMany = JSONValue.array((0..<31).map { .int(Int64($0)) })
        let bad: [StructuredQuery] = [
            try Self.items([Filter(a, .in, tooMany)]),
            try Self.items([Filter(a, .in, 1)]),
            try Self.items([Filter(a, .in, [])]),
            try Self.items([Filter(a, .arrayContains, 1), Filter(b, .arrayContainsAny, [1])]),
            try Self.items([Filter(a, .notIn, [1]), Filter(a, .notEqual, 2)]),
            try Self.items(orderBy: [Order(a), Order(a)]),
            try Self.items(limit: -1),
            try Self.items([Filter(.id, .equal, 1)]),
            StructuredQuery(.collectionGroup("a/b")),
        ]
        for query in bad { expectError(.invalidQuery, status: 400) { _ = try h.store.query(query) } }
    }
}
