import KuraCore
import KuraModel
import KuraStore
import KuraTestSupport
import Testing

@testable import KuraRealtime

/// `ViewSharing`: listeners of the same target whose views are equal share one computation per change, and each
/// still gets exactly what it would have computed alone.
@Suite struct ViewSharingTests {
    static let todos = try! CollectionPath("todos")

    static func query(id: String, limit: Int?, done: Bool = false) throws -> ListenTarget {
        try ListenTarget(
            id: id,
            query: StructuredQuery(
                .collection(todos), filters: [Filter(.field(try FieldPath("done")), .equal, .bool(done))],
                orderBy: [Order(.field(try FieldPath("rank")))], limit: limit))
    }

    @Test("keys: the same query or document under other ids is one key; another filter, limit or path is not")
    func keys() throws {
        #expect(ShareKey(try Self.query(id: "a", limit: 3)) == ShareKey(try Self.query(id: "b", limit: 3)))
        #expect(ShareKey(try Self.query(id: "a", limit: 3)) != ShareKey(try Self.query(id: "a", limit: 4)))
        #expect(ShareKey(try Self.query(id: "a", limit: nil)) != ShareKey(try Self.query(id: "a", limit: 3)))
        #expect(
            ShareKey(try Self.query(id: "a", limit: 3)) != ShareKey(try Self.query(id: "a", limit: 3, done: true)))
        let path = try DocumentPath("todos/t1")
        #expect(
            ShareKey(try ListenTarget(id: "a", document: path)) == ShareKey(try ListenTarget(id: "b", document: path)))
        #expect(
            ShareKey(try ListenTarget(id: "a", document: path))
                != ShareKey(try ListenTarget(id: "a", document: try DocumentPath("todos/t2"))))
    }

    @Test("scoped keys: one rules identity's listeners share only among themselves, never with the unscoped view")
    func scopedKeys() throws {
        let target = try Self.query(id: "a", limit: 3)
        let other = try Self.query(id: "b", limit: 3)
        #expect(ShareKey(target, scope: "user:u1") == ShareKey(other, scope: "user:u1"))
        #expect(ShareKey(target, scope: "user:u1") != ShareKey(target, scope: "user:u2"))
        #expect(ShareKey(target, scope: "user:u1") != ShareKey(target))
    }

    @Test("a view that shared a result under one key does not take another key's result by its token")
    func tokenStaysWithItsKey() throws {
        let target = try Self.query(id: "a", limit: nil)
        var model = Model()
        let path = try Self.todos.document("t1")
        let first = model.write(path, ["done": false, "rank": 1]).after
        let open = ShareKey(target)
        let scoped = ShareKey(target, scope: "user:u1")
        var sharing = ViewSharing()
        var one = (view: TargetView(target: target, documents: [], complete: true), token: 0)
        var two = one
        func apply(_ key: ShareKey?, _ listener: inout (view: TargetView, token: Int), result: [Document]) -> Int {
            var calls = 0
            _ = sharing.apply(key, view: &listener.view, token: &listener.token) { view in
                calls += 1
                return try! view.apply(
                    path: path, after: result.first, includes: { _ in !result.isEmpty }, refill: { _, _ in ([], true) })
            }
            return calls
        }
        // Both hold the same view under the open key: one computation, one token.
        sharing.begin()
        #expect(apply(open, &one, result: [first!]) == 1)
        #expect(apply(open, &two, result: [first!]) == 0)
        #expect(one.token == two.token)
        // The next write: the first listener stays open, the second is now filtered (the rules changed); it
        // computes its own result (the document is not readable to it) instead of adopting the first's.
        let second = model.write(path, ["done": false, "rank": 2]).after!
        sharing.begin()
        #expect(apply(open, &one, result: [second]) == 1)
        #expect(apply(scoped, &two, result: []) == 1)
        #expect(one.view.documents.map(\.path) == [path])
        #expect(two.view.documents.isEmpty)
    }

    @Test("an event from shared chunks has the same bytes as one from the changes themselves")
    func chunkEvents() throws {
        let target = try Self.query(id: "t-1", limit: nil)
        var model = Model()
        let one = model.write(try Self.todos.document("a"), ["done": false, "rank": 1]).after!
        let two = model.write(try Self.todos.document("b"), ["done": false, "rank": 0]).after!
        let first = [ListenChange(kind: .added, document: one, oldIndex: -1, newIndex: 0)]
        let second = [
            ListenChange(kind: .added, document: two, oldIndex: -1, newIndex: 0),
            ListenChange(kind: .modified, document: one, oldIndex: 1, newIndex: 1),
        ]
        let id = StreamPosition(base: 3, sequence: 5, through: "t-1")
        var cache = DocumentJSON()
        let plain = ListenEvent.changes(target, first + second, id: id, cache: &cache)
        let chunks = [ChangeChunk(first), ChangeChunk(second)]
        for _ in 0..<2 {  // encoded, then from the chunks' cached bytes
            let shared = ListenEvent.changes(target, chunks, id: Array(id.description.utf8), cache: &cache)
            #expect(String(decoding: shared, as: UTF8.self) == String(decoding: plain, as: UTF8.self))
        }
    }

    /// One listener as the feed holds it, and the same listener computed alone.
    struct Listener {
        let target: ListenTarget
        let key: ShareKey?
        var view: TargetView
        var token = 0
        var alone: TargetView
    }

    @Test("random writes: shared results equal the ones computed alone, listeners that join late are merged")
    func sharedEqualsAlone() throws {
        var random = SplitMix(state: 42)
        var model = Model()
        var sharing = ViewSharing()
        func listener(_ target: ListenTarget, shared: Bool = true) -> Listener {
            let all = model.expected(ListenTarget.unlimited(target))
            let documents = Array(all.prefix(target.limit ?? all.count))
            let view = TargetView(target: target, documents: documents, complete: documents.count == all.count)
            return Listener(target: target, key: shared ? ShareKey(target) : nil, view: view, alone: view)
        }
        var listeners = try [
            listener(Self.query(id: "a", limit: 3)), listener(Self.query(id: "b", limit: 3)),
            listener(Self.query(id: "c", limit: nil)), listener(Self.query(id: "d", limit: nil)),
            listener(Self.query(id: "e", limit: 3), shared: false),
        ]
        var computed = 0
        var delivered = 0
        for step in 0..<400 {
            if step == 100 {
                // Joining with a view read now: equal to the others' views, so merged with them.
                listeners.append(try listener(Self.query(id: "f", limit: 3)))
                listeners.append(try listener(Self.query(id: "g", limit: nil)))
            }
            let path = try Self.todos.document("t\(random.below(10))")
            var fields: JSONObject? = ["done": .bool(random.chance(30)), "rank": .int(Int64(random.below(5)))]
            if random.chance(15) { fields = nil }
            let (_, after) = model.write(path, fields)
            let snapshot = model
            sharing.begin()
            for index in listeners.indices {
                let target = listeners[index].target
                let compute = { (view: inout TargetView) throws -> [ListenChange] in
                    try view.apply(
                        path: path, after: after, includes: target.matches,
                        refill: { last, count in
                            let all = snapshot.expected(ListenTarget.unlimited(target))
                            let rest = last.map { last in all.filter { target.compare($0, last) > 0 } } ?? all
                            return (Array(rest.prefix(count)), rest.count <= count)
                        })
                }
                var one = listeners[index]
                let expected = try compute(&one.alone)
                var calls = 0
                let chunk = try sharing.apply(one.key, view: &one.view, token: &one.token) { view in
                    calls += 1
                    return try compute(&view)
                }
                listeners[index] = one
                computed += calls
                delivered += 1
                #expect((chunk?.changes ?? []) == expected, "step \(step), \(target.id)")
                #expect(listeners[index].view.documents == listeners[index].alone.documents, "step \(step)")
                #expect(listeners[index].view.documents == model.expected(target), "step \(step), \(target.id)")
            }
        }
        // Three computations per write (limit 3, no limit, the unshared one), not seven.
        #expect(computed == 3 * 400)
        #expect(delivered == 100 * 5 + 300 * 7)
    }
}

extension ListenTarget {
    /// The same query without its limit (all its documents); a document target as is.
    fileprivate static func unlimited(_ target: ListenTarget) -> ListenTarget {
        guard case .query(var query, _) = target.kind else { return target }
        query.limit = nil
        return try! ListenTarget(id: target.id, query: query)
    }
}
