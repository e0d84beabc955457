import KuraCore
import KuraModel
import KuraStore
import KuraStoreTestSupport
import Testing

/// Conformance: `or`/`and` composite filters and inequality filters on several fields, in every engine.
@Suite struct ConformanceCompositeFilterTests {
    typealias Items = ConformanceQueryTests

    static func f(_ name: String, _ op: Filter.Operator, _ value: JSONValue) -> FilterTree {
        // The names are literals of this file, all valid.
        .filter(Filter(try! QueryField(name), op, value))
    }

    static func ids(
        _ store: any DocumentStore, _ composites: [FilterTree], filters: [Filter] = [], orderBy: [Order] = [],
        limit: Int? = nil, start: Cursor? = nil
    ) throws -> [String] {
        var query = try Items.items(filters, orderBy: orderBy, limit: limit)
        query.composites = composites
        query.start = start
        return try store.query(query).documents.map(\.id)
    }

    @Test(arguments: EngineUnderTest.all)
    func orAndNesting(_ engine: EngineUnderTest) throws {
        let h = try Items.seeded(engine)
        let s = h.store
        #expect(
            try Self.ids(s, [.or([Self.f("n", .equal, 1), Self.f("tag", .equal, "c")])]) == ["i1", "i2", "i5", "i8"])
        // An inequality inside an `or` orders by its field.
        let mixed = FilterTree.or([
            .and([Self.f("even", .equal, true), Self.f("n", .greaterThan, 5)]), Self.f("n", .equal, 1),
        ])
        #expect(try Self.ids(s, [mixed]) == ["i1", "i6", "i8"])
        // Top-level entries are AND-ed, with plain filters too.
        let ends = FilterTree.or([Self.f("n", .lessThan, 2), Self.f("n", .greaterThan, 8)])
        #expect(try Self.ids(s, [ends], filters: [Filter(.field(try field("tag")), .equal, "a")]) == ["i0", "i9"])
        let deep = FilterTree.or([
            .and([Self.f("tag", .equal, "b"), .or([Self.f("n", .equal, 1), Self.f("n", .equal, 7)])]),
            Self.f("id", .equal, "i9"),
        ])
        #expect(try Self.ids(s, [deep]) == ["i1", "i7", "i9"])
        #expect(try Self.ids(s, [.and([Self.f("even", .equal, false), Self.f("tag", .equal, "a")])]) == ["i3", "i9"])
        #expect(try Self.ids(s, [.or([Self.f("n", .equal, 4)])]) == ["i4"])
        let contains = FilterTree.or([Self.f("tags", .arrayContains, "t1"), Self.f("n", .equal, 0)])
        #expect(try Self.ids(s, [contains]) == ["i0", "i1", "i3", "i5", "i7", "i9"])
        let anyOf = FilterTree.or([Self.f("n", .in, [2, 3]), Self.f("nested.v", .equal, 1)])
        #expect(try Self.ids(s, [anyOf]) == ["i2", "i3", "i9"])
        // Two `or`s at the top level: both must hold.
        let second = FilterTree.or([Self.f("even", .equal, true), Self.f("n", .equal, 9)])
        #expect(
            try Self.ids(s, [.or([Self.f("tag", .equal, "a"), Self.f("tag", .equal, "b")]), second]) == [
                "i0", "i4", "i6", "i9",
            ])
        // Order, limit and page tokens apply as usual.
        let ab = FilterTree.or([Self.f("tag", .equal, "a"), Self.f("tag", .equal, "b")])
        let n = QueryField.field(try field("n"))
        var query = try Items.items(orderBy: [Order(n, descending: true)], limit: 3)
        query.composites = [ab]
        var pages: [[String]] = []
        while true {
            let page = try s.query(query)
            pages.append(page.documents.map(\.id))
            guard let token = page.nextPageToken else { break }
            query.pageToken = token
        }
        #expect(pages.flatMap { $0 } == ["i9", "i7", "i6", "i4", "i3", "i1", "i0"])
        query.pageToken = nil
        query.limit = nil
        #expect(try s.count(query) == 7)
    }

    @Test(arguments: EngineUnderTest.all)
    func missingFields(_ engine: EngineUnderTest) throws {
        let h = try Items.seeded(engine)
        let s = h.store
        try s.set(doc("items/x1"), object(["other": 1]))
        try s.set(doc("items/x2"), object(["other": .null, "n": 100]))
        #expect(try Self.ids(s, [.or([Self.f("missing", .equal, 1), Self.f("n", .equal, 2)])]) == ["i2"])
        #expect(try Self.ids(s, [.or([Self.f("tag", .equal, "zz"), Self.f("other", .equal, 1)])]) == ["x1"])
        // `!=` needs its field; as an inequality it orders by it, so every result has it.
        #expect(try Self.ids(s, [.or([Self.f("other", .notEqual, 5), Self.f("n", .equal, 0)])]) == ["x2", "x1"])
        #expect(try Self.ids(s, [.or([Self.f("other", .equal, .null), Self.f("n", .equal, 0)])]) == ["i0", "x2"])
    }

    @Test(arguments: EngineUnderTest.all)
    func inequalitiesOnSeveralFields(_ engine: EngineUnderTest) throws {
        let h = try Items.seeded(engine)
        let s = h.store
        let n = QueryField.field(try field("n"))
        let v = QueryField.field(try field("nested.v"))
        let tag = QueryField.field(try field("tag"))
        let both = [Filter(n, .greaterThan, 2), Filter(v, .greaterThan, 3)]
        // Implicit order: n, then nested.v (field-name order), then id.
        #expect(try Self.ids(s, [], filters: both) == ["i3", "i4", "i5", "i6"])
        #expect(try Self.ids(s, [], filters: both.reversed()) == ["i3", "i4", "i5", "i6"])
        // After an explicit orderBy, in its direction.
        let byTag = [Order(tag, descending: true)]
        #expect(try Self.ids(s, [], filters: both, orderBy: byTag) == ["i5", "i4", "i6", "i3"])
        #expect(try Self.ids(s, [], filters: both, orderBy: byTag, limit: 2) == ["i5", "i4"])
        #expect(
            try Self.ids(s, [], filters: both, orderBy: byTag, start: Cursor(values: ["b"], inclusive: false)) == [
                "i6", "i3",
            ])
        // An inequality on a field other than the orderBy's.
        #expect(
            try Self.ids(s, [], filters: [Filter(n, .greaterThan, 6)], orderBy: [Order(v)]) == ["i9", "i8", "i7"])
        #expect(
            try Self.ids(s, [], filters: [Filter(n, .notEqual, 3), Filter(v, .lessThan, 5)]) == [
                "i6", "i7", "i8", "i9",
            ])
        var counted = try Items.items(both)
        counted.limit = nil
        #expect(try s.count(counted) == 4)
    }

    @Test(arguments: EngineUnderTest.all)
    func invalidComposites(_ engine: EngineUnderTest) throws {
        let h = try Items.seeded(engine)
        let bad: [[FilterTree]] = [
            [.or([])],
            [.and([])],
            [.or([Self.f("a", .notIn, [1]), Self.f("b", .equal, 1)])],
            [.or([Self.f("a", .arrayContains, 1), Self.f("b", .arrayContains, 1)])],
            [.or([Self.f("id", .equal, 1), Self.f("b", .equal, 1)])],
        ]
        for composites in bad {
            var query = try Items.items()
            query.composites = composites
            expectError(.invalidQuery, status: 400) { _ = try h.store.query(query) }
        }
    }
}
