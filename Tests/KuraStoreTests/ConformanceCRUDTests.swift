import KuraCore
import KuraModel
import KuraStore
import KuraStoreTestSupport
import Testing

/// Conformance: single-document operations, preconditions, limits. Runs against every engine.
@Suite struct ConformanceCRUDTests {
    @Test(arguments: EngineUnderTest.all)
    func createGetAndMetadata(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        let created = try h.store.create(in: col("users"), object(["name": "Ada", "age": 36]))
        #expect(created.id.utf8.count == 20)
        #expect(created.id.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) })
        let fetched = try #require(try h.store.get(created.path))
        #expect(fetched.fields == object(["name": "Ada", "age": 36]))
        #expect(fetched.version == 1)
        #expect(fetched.createTime == fetched.updateTime)
        let json = fetched.json.objectValue
        #expect(json?["id"] == .string(created.id))
        #expect(json?["path"] == .string("users/\(created.id)"))
        #expect(json?["version"] == .int(1))
        #expect(json?["createTime"]?.stringValue?.count == 27)
        #expect(try h.store.get(doc("users/missing")) == nil)
        #expect(try h.store.get(doc("nothing/here")) == nil)
    }

    @Test(arguments: EngineUnderTest.all)
    func createFailsWhenExisting(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        try h.store.create(doc("a/b"), object(["x": 1]))
        expectError(.alreadyExists, status: 409) { try h.store.create(doc("a/b"), object(["x": 2])) }
    }

    @Test(arguments: EngineUnderTest.all)
    func setReplacesAndBumpsVersion(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        let path = try doc("a/b")
        #expect(try h.store.set(path, object(["x": 1, "y": ["z": 1]])).version == 1)
        let second = try h.store.set(path, object(["y": ["w": 2]]))
        #expect(second.version == 2)
        let stored = try #require(try h.store.get(path))
        #expect(stored.fields == object(["y": ["w": 2]]))
        #expect(stored.updateTime == second.updateTime)
        #expect(stored.createTime < stored.updateTime)
    }

    @Test(arguments: EngineUnderTest.all)
    func setMergeMergesNestedObjects(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        let path = try doc("a/b")
        try h.store.set(path, object(["x": 1, "m": ["a": 1, "b": ["c": 1]], "arr": [1, 2]]))
        try h.store.set(path, object(["m": ["b": ["d": 2]], "arr": [3], "new": true]), merge: true)
        #expect(
            try h.store.get(path)?.fields
                == object(["x": 1, "m": ["a": 1, "b": ["c": 1, "d": 2]], "arr": [3], "new": true]))
        try h.store.set(doc("a/fresh"), object(["k": 1]), merge: true)
        #expect(try h.store.get(doc("a/fresh"))?.version == 1)
    }

    @Test(arguments: EngineUnderTest.all)
    func updateFieldPaths(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        let path = try doc("a/b")
        try h.store.set(path, object(["a": ["b": 0, "keep": true], "s": "x"]))
        let result = try h.store.update(path, [(field("a.b"), 1), (field("n.m.o"), "deep"), (field("s"), nil)])
        #expect(result.version == 2)
        #expect(
            try h.store.get(path)?.fields
                == object(["a": ["b": 1, "keep": true], "s": nil, "n": ["m": ["o": "deep"]]]))
        expectError(.notFound, status: 404) { try h.store.update(doc("a/missing"), [(field("x"), 1)]) }
        expectError(.invalidArgument) { try h.store.update(path, [(field("a"), 1), (field("a.b"), 2)]) }
    }

    @Test(arguments: EngineUnderTest.all)
    func deleteIsIdempotent(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        let path = try doc("a/b")
        try h.store.set(path, object(["x": 1]))
        #expect(try h.store.delete(path).version == 0)
        #expect(try h.store.get(path) == nil)
        try h.store.delete(path)
        try h.store.delete(doc("never/existed"))
        #expect(try h.store.set(path, object(["x": 2])).version == 1)
    }

    @Test(arguments: EngineUnderTest.all)
    func preconditions(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        let path = try doc("a/b")
        expectError(.failedPrecondition, status: 412) {
            try h.store.set(path, object(["x": 1]), precondition: .exists(true))
        }
        try h.store.set(path, object(["x": 1]), precondition: .exists(false))
        expectError(.failedPrecondition) { try h.store.set(path, object(["x": 2]), precondition: .exists(false)) }
        expectError(.failedPrecondition) { try h.store.set(path, object(["x": 2]), precondition: .version(7)) }
        #expect(try h.store.set(path, object(["x": 2]), precondition: .version(1)).version == 2)
        try h.store.update(path, [(field("x"), 3)], precondition: .exists(true))
        expectError(.failedPrecondition) { try h.store.delete(path, precondition: .version(2)) }
        try h.store.delete(path, precondition: .version(3))
        expectError(.failedPrecondition) { try h.store.delete(path, precondition: .exists(true)) }
        #expect(try h.store.get(path) == nil)
    }

    @Test(arguments: EngineUnderTest.all)
    func documentLimits(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        let big = String(repeating: "x", count: DocumentLimits.maxBytes)
        expectError(.documentTooLarge, status: 413) { try h.store.set(doc("a/b"), object(["s": .string(big)])) }
        let fits = String(repeating: "x", count: DocumentLimits.maxBytes - 20)
        try h.store.set(doc("a/c"), object(["s": .string(fits)]))
        #expect(try h.store.get(doc("a/c"))?.fields["s"] == .string(fits))
        var deep: JSONValue = 1
        for _ in 0..<20 { deep = [deep] }
        try h.store.set(doc("a/d"), object(["v": deep]))
        expectError(.invalidArgument, status: 400) { try h.store.set(doc("a/e"), object(["v": [deep]])) }
        expectError(.invalidArgument) { try h.store.set(doc("a/f"), object(["m": ["": 1]])) }
        #expect(try h.store.get(doc("a/b")) == nil)
    }

    @Test(arguments: EngineUnderTest.all)
    func preservesValueTypes(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        let fields = object([
            "big": .int(.max), "small": .int(.min), "one": 1, "oneDouble": 1.0, "pi": 3.141592653589793,
            "s": "日本\u{0}😀", "null": nil, "nested": ["a": [1, ["b": false]]],
        ])
        try h.store.set(doc("types/t"), fields)
        #expect(try h.store.get(doc("types/t"))?.fields == fields)
    }

    @Test(arguments: EngineUnderTest.all)
    func subcollectionsAreIndependent(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        try h.store.set(doc("users/u1"), object(["n": 1]))
        try h.store.set(doc("users/u1/todos/t1"), object(["n": 2]))
        try h.store.delete(doc("users/u1"))
        #expect(try h.store.get(doc("users/u1/todos/t1"))?.fields == object(["n": 2]))
    }
}
