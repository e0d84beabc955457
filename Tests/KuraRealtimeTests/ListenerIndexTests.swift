import KuraCore
import KuraModel
import KuraStore
import Testing

@testable import KuraRealtime

/// The fan-out index as a plain value: a write finds the listeners it may concern and no others.
@Suite struct ListenerIndexTests {
    static func document(_ path: String, _ fields: JSONObject) -> Document {
        Document(path: try! DocumentPath(path), fields: fields, createTime: 1, updateTime: 1, version: 1)
    }

    static func query(_ id: String, _ source: StructuredQuery.Source, _ filters: [Filter] = []) throws -> ListenTarget {
        try ListenTarget(id: id, query: StructuredQuery(source, filters: filters))
    }

    @Test("listeners are found by document path, collection, collection group and equality value")
    func lookups() throws {
        let status = QueryField.field(try FieldPath("status"))
        let todos = StructuredQuery.Source.collection(try CollectionPath("users/u1/todos"))
        var index = ListenerIndex<String>()
        let targets: [String: ListenTarget] = [
            "doc": try ListenTarget(id: "doc", document: try DocumentPath("users/u1/todos/t1")),
            "all": try Self.query("all", todos),
            "open": try Self.query("open", todos, [Filter(status, .equal, "open")]),
            "either": try Self.query("either", todos, [Filter(status, .in, ["open", "done"])]),
            "range": try Self.query("range", todos, [Filter(status, .greaterThan, "a")]),
            "group": try Self.query("group", .collectionGroup("todos")),
            "elsewhere": try Self.query("elsewhere", .collection(try CollectionPath("users/u2/todos"))),
        ]
        for (key, target) in targets { index.insert(key, target) }
        #expect(index.count == targets.count)

        let t1 = "users/u1/todos/t1"
        #expect(
            index.listeners(for: try DocumentPath(t1), before: nil, after: Self.document(t1, ["status": "open"]))
                == ["doc", "all", "open", "either", "range", "group"])
        // Neither state has a value those filters want: equality-indexed listeners are not even looked at.
        #expect(
            index.listeners(
                for: try DocumentPath("users/u1/todos/t2"), before: Self.document("users/u1/todos/t2", ["status": "x"]),
                after: Self.document("users/u1/todos/t2", ["status": "y"])) == ["all", "range", "group"])
        // Leaving a value is found through the state before the write.
        #expect(
            index.listeners(
                for: try DocumentPath("users/u1/todos/t2"),
                before: Self.document("users/u1/todos/t2", ["status": "done"]), after: nil)
                == ["all", "either", "range", "group"])
        // 1 and 1.0 are the same value for ==.
        var numbers = ListenerIndex<String>()
        numbers.insert("one", try Self.query("one", todos, [Filter(.field(try FieldPath("n")), .equal, 1)]))
        #expect(
            numbers.listeners(for: try DocumentPath(t1), before: nil, after: Self.document(t1, ["n": 1.0]))
                == ["one"])
        // Another collection, a subcollection: nothing.
        #expect(index.listeners(for: try DocumentPath("other/x"), before: nil, after: nil).isEmpty)
        #expect(
            index.listeners(for: try DocumentPath("users/u1/todos/t1/notes/n"), before: nil, after: nil).isEmpty)

        for (key, target) in targets { index.remove(key, target) }
        #expect(index.count == 0)
        #expect(
            index.listeners(for: try DocumentPath(t1), before: nil, after: Self.document(t1, ["status": "open"]))
                .isEmpty)
    }
}

/// Event ids: plain and mid-batch positions.
@Suite struct StreamPositionTests {
    @Test("plain and composite ids parse, print and resume each target from the right sequence")
    func positions() throws {
        #expect(StreamPosition("42") == StreamPosition(42))
        #expect(StreamPosition(42).description == "42")
        let mid = try #require(StreamPosition("40~45~m"))
        #expect(mid.description == "40~45~m")
        #expect(mid.sequence(for: "a") == 45)
        #expect(mid.sequence(for: "m") == 45)
        #expect(mid.sequence(for: "n") == 40)
        #expect(mid.sequence(for: "m.1") == 40)
        for bad in ["", "x", "-1", "40~39~a", "1~2", "1~2~", "1~2~a~b", "1~2~a b"] {
            #expect(StreamPosition(bad) == nil, "\(bad)")
        }
    }

    @Test("target ids are checked: no separators, no spaces, at most 64 bytes")
    func targetIDs() throws {
        for good in ["a", "todos", "T-1_x.y", String(repeating: "z", count: 64)] {
            #expect(throws: Never.self) { try ListenTarget.validate(good) }
        }
        for bad in ["", "a~b", "a,b", "a b", "é", String(repeating: "z", count: 65)] {
            #expect(throws: (any Error).self) { try ListenTarget.validate(bad) }
        }
    }
}
