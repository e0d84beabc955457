import KuraCore
import KuraModel
import KuraStore
import KuraStoreTestSupport
import KuraTestSupport
import Testing

/// `QueryMatcher` (in-memory evaluation) against every engine: the same documents, the same answers.
@Suite struct QueryMatchingTests {
    /// Values of every type, with the awkward cases: integers and doubles that are equal, strings that are
    /// prefixes of each other, nested arrays and objects.
    static let pool: [JSONValue] = [
        .null, false, true, 0, 1, 1.0, 1.5, 2, -3, 9_007_199_254_740_993, 2.5e10, "", "a", "ab", "b", "B", "é",
        [], [1], [1, 2], ["a"], [[1]], ["k": 1], ["k": "a"], [:],
    ]

    /// Documents in `g/a/items` and `g/b/items` (a collection group) with fields drawn from the pool; some
    /// fields missing; `arr` holds arrays of pool values; `nested.v` a nested field. IDs overlap between the two
    /// collections so the group's tie-break by collection path matters.
    static func seed(_ store: any DocumentStore, _ random: inout SplitMix) throws -> [Document] {
        var writes: [Write] = []
        for collection in ["g/a/items", "g/b/items"] {
            for index in 0..<40 {
                var fields = JSONObject()
                if random.chance(85) { fields["x"] = random.pick(pool) }
                if random.chance(85) { fields["y"] = random.pick(pool) }
                if random.chance(70) { fields["arr"] = .array((0..<random.below(4)).map { _ in random.pick(pool) }) }
                if random.chance(60) { fields["nested"] = ["v": random.pick(pool)] }
                let id = "d\(index % 25)\(["", "x", "é"][index % 3])"
                writes.append(
                    Write(path: try DocumentPath("\(collection)/\(id)"), operation: .set(fields, merge: false)))
            }
        }
        _ = try store.commit(writes)
        var documents: [Document] = []
        for source in ["g/a/items", "g/b/items"] {
            documents += try store.query(StructuredQuery(.collection(try CollectionPath(source)))).documents
        }
        return documents
    }

    static func randomFilter(_ random: inout SplitMix, ids: [String]) throws -> Filter {
        let op = random.pick(Filter.Operator.allCases)
        let fieldName = random.pick(["x", "y", "arr", "nested.v", "id", "createTime"])
        let field = try QueryField(fieldName)
        var value = random.pick(pool)
        switch fieldName {
        case "id": value = .string(random.pick(ids))
        case "createTime": value = .string("2000-01-01T00:00:00Z")
        default: break
        }
        if op == .in || op == .notIn || op == .arrayContainsAny {
            value = .array(
                (0..<(1 + random.below(3))).map { _ in fieldName == "id" ? .string(random.pick(ids)) : random.pick(pool)
                })
        }
        return Filter(field, op, value)
    }

    /// The matcher's answer: matching documents, sorted, cut at the limit.
    static func evaluate(_ matcher: QueryMatcher, _ documents: [Document], limit: Int?) -> [String] {
        var matched = documents.filter(matcher.matches).sorted { matcher.compare($0, $1) < 0 }
        if let limit { matched = Array(matched.prefix(limit)) }
        return matched.map(\.path.description)
    }

    /// A random `or`/`and` of up to three conditions, nested up to `depth` more levels.
    static func randomTree(_ random: inout SplitMix, ids: [String], depth: Int) throws -> FilterTree {
        if depth == 0 || random.chance(40) { return .filter(try randomFilter(&random, ids: ids)) }
        let children = try (0..<(1 + random.below(3))).map { _ in
            try randomTree(&random, ids: ids, depth: depth - 1)
        }
        return random.chance(60) ? .or(children) : .and(children)
    }

    @Test(
        "random queries with or/and filters and inequalities on several fields: the matcher agrees with every engine",
        arguments: EngineUnderTest.all)
    func agreesWithEngineOnComposites(_ engine: EngineUnderTest) throws {
        try agreesWithEngine(engine, seed: 20_261_203, composites: true)
    }

    @Test(
        "random queries: the matcher agrees with every engine on membership and order", arguments: EngineUnderTest.all)
    func agreesWithEngine(_ engine: EngineUnderTest) throws {
        try agreesWithEngine(engine, seed: 20_261_129, composites: false)
    }

    func agreesWithEngine(_ engine: EngineUnderTest, seed: UInt64, composites: Bool) throws {
        let h = try engine.make()
        let store = h.store
        var random = SplitMix(state: seed)
        let documents = try Self.seed(store, &random)
        let ids = documents.map(\.id)
        var compared = 0
        var nonEmpty = 0
        for _ in 0..<1500 {
            let source: StructuredQuery.Source =
                random.chance(30) ? .collectionGroup("items") : .collection(try CollectionPath("g/a/items"))
            var query = StructuredQuery(source)
            for _ in 0..<random.below(3) { query.filters.append(try Self.randomFilter(&random, ids: ids)) }
            if composites {
                for _ in 0..<(1 + random.below(2)) {
                    query.composites.append(try Self.randomTree(&random, ids: ids, depth: 2))
                }
            }
            for _ in 0..<random.below(3) {
                let name = random.pick(["x", "y", "nested.v", "id", "updateTime"])
                query.orderBy.append(Order(try QueryField(name), descending: random.chance(40)))
            }
            if random.chance(40) { query.limit = 1 + random.below(12) }
            if random.chance(30) {
                let values = (0..<(1 + random.below(2))).map { _ in random.pick(Self.pool) }
                query.start = Cursor(values: values, inclusive: random.chance(50))
            }
            if random.chance(20) {
                query.end = Cursor(values: [random.pick(Self.pool)], inclusive: random.chance(50))
            }
            let expected: [String]
            do {
                expected = try store.query(query).documents.map(\.path.description)
            } catch let error as ValidationError where error.code == .invalidQuery {
                #expect(throws: ValidationError.self) { _ = try QueryMatcher(query) }
                continue
            }
            let matcher = try QueryMatcher(query)
            let actual = Self.evaluate(matcher, documents, limit: query.limit)
            #expect(actual == expected, "query \(query)")
            compared += 1
            if !expected.isEmpty { nonEmpty += 1 }
        }
        // The generator must produce enough runnable, non-trivial queries for the comparison to mean something.
        #expect(compared > 500)
        // Composite filters narrow the results, so fewer of those queries match anything.
        #expect(nonEmpty > (composites ? 100 : 250))
    }

    @Test(
        "array-contains on the first orderBy field matches elements, not the whole value (was an engine bug)",
        arguments: EngineUnderTest.all)
    func engineArrayContainsOnOrderField(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        let store = h.store
        try store.create(try DocumentPath("items/scalar"), ["tags": "b"])
        try store.create(try DocumentPath("items/array"), ["tags": ["b"]])
        let tags = QueryField.field(try FieldPath("tags"))
        let query = StructuredQuery(
            .collection(Self.items), filters: [Filter(tags, .arrayContains, "b")], orderBy: [Order(tags)])
        let matcher = try QueryMatcher(query)
        let documents = try store.query(StructuredQuery(.collection(Self.items))).documents
        #expect(Self.evaluate(matcher, documents, limit: nil) == ["items/array"])
        #expect(try store.query(query).documents.map(\.path.description) == ["items/array"])
    }

    static let items = try! CollectionPath("items")

    static func document(_ id: String, _ fields: JSONObject, in collection: CollectionPath = items) -> Document {
        Document(path: try! collection.document(id), fields: fields, createTime: 100, updateTime: 200, version: 1)
    }

    static func matches(_ filter: Filter, _ fields: JSONObject) throws -> Bool {
        try QueryMatcher(StructuredQuery(.collection(items), filters: [filter])).matches(document("d", fields))
    }

    @Test("Firestore semantics: missing fields, type-bracketed ranges, arrays, numbers across types")
    func semantics() throws {
        let x = QueryField.field(try FieldPath("x"))
        // A missing field matches nothing, not even != or not-in.
        #expect(try !Self.matches(Filter(x, .notEqual, 1), [:]))
        #expect(try !Self.matches(Filter(x, .notIn, [1]), [:]))
        #expect(try Self.matches(Filter(x, .notEqual, 1), ["x": .null]))
        // Ranges only match their operand's type.
        #expect(try !Self.matches(Filter(x, .greaterThan, 1), ["x": "a"]))
        #expect(try Self.matches(Filter(x, .greaterThan, 1), ["x": 1.5]))
        #expect(try !Self.matches(Filter(x, .lessThan, "b"), ["x": 1]))
        // Integers and doubles are one type, compared exactly.
        #expect(try Self.matches(Filter(x, .equal, 1), ["x": 1.0]))
        #expect(try !Self.matches(Filter(x, .equal, 9_007_199_254_740_992.0), ["x": 9_007_199_254_740_993]))
        // Arrays: array-contains looks at elements; == compares the whole array.
        #expect(try Self.matches(Filter(x, .arrayContains, 2), ["x": [1, 2]]))
        #expect(try !Self.matches(Filter(x, .arrayContains, 2), ["x": 2]))
        #expect(try Self.matches(Filter(x, .arrayContainsAny, [5, "a"]), ["x": ["a"]]))
        #expect(try Self.matches(Filter(x, .equal, [1, 2]), ["x": [1, 2]]))
        #expect(try !Self.matches(Filter(x, .in, [[1]]), ["x": [1, 2]]))
        // Nested field paths.
        let nested = QueryField.field(try FieldPath("a.b"))
        #expect(try Self.matches(Filter(nested, .equal, true), ["a": ["b": true]]))
        #expect(try !Self.matches(Filter(nested, .equal, true), ["a": true]))
        // Metadata: id by UTF-8 bytes, times as RFC 3339.
        #expect(try Self.matches(Filter(.id, .greaterThan, "c"), [:]))
        #expect(try Self.matches(Filter(.createTime, .lessThan, "1970-01-01T00:00:01Z"), [:]))
    }

    @Test("the order puts the orderBy field first, ends with id, and requires the ordered fields")
    func ordering() throws {
        let matcher = try QueryMatcher(
            StructuredQuery(.collection(Self.items), orderBy: [Order(.field(try FieldPath("n")), descending: true)]))
        let a = Self.document("a", ["n": 1])
        let b = Self.document("b", ["n": 2])
        let c = Self.document("c", ["n": 2.0])
        #expect(matcher.compare(b, a) < 0)
        #expect(matcher.compare(b, c) > 0)  // equal n: id decides, descending like the last orderBy
        #expect(!matcher.matches(Self.document("d", ["m": 1])))
        // A collection group breaks id ties by collection path.
        let group = try QueryMatcher(StructuredQuery(.collectionGroup("items")))
        let first = Self.document("same", [:], in: try CollectionPath("a/1/items"))
        let second = Self.document("same", [:], in: try CollectionPath("a/2/items"))
        #expect(group.compare(first, second) < 0)
        #expect(group.inSource(second.path))
        #expect(!group.inSource(try DocumentPath("items2/x")))
    }

    @Test("cursors: prefixes, inclusive and exclusive, in both directions")
    func cursors() throws {
        let n = QueryField.field(try FieldPath("n"))
        func ids(start: Cursor? = nil, end: Cursor? = nil, descending: Bool = false) throws -> [String] {
            let matcher = try QueryMatcher(
                StructuredQuery(
                    .collection(Self.items), orderBy: [Order(n, descending: descending)], start: start, end: end))
            let documents = (0..<5).map { Self.document("d\($0)", ["n": .int(Int64($0 / 2))]) }
            return documents.filter(matcher.matches).sorted { matcher.compare($0, $1) < 0 }.map(\.id)
        }
        #expect(try ids(start: Cursor(values: [1], inclusive: true)) == ["d2", "d3", "d4"])
        #expect(try ids(start: Cursor(values: [1], inclusive: false)) == ["d4"])
        #expect(try ids(start: Cursor(values: [1, "d2"], inclusive: false)) == ["d3", "d4"])
        #expect(try ids(end: Cursor(values: [1], inclusive: false)) == ["d0", "d1"])
        #expect(try ids(start: Cursor(values: [1], inclusive: true), descending: true) == ["d3", "d2", "d1", "d0"])
    }
}
