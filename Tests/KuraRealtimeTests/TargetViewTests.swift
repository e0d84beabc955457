import KuraCore
import KuraModel
import KuraStore
import KuraTestSupport
import Testing

@testable import KuraRealtime

/// `TargetView` as a plain value: random writes against a model, checking after every write that the view holds
/// exactly what the query answers now (limit windows included) and that a client applying the emitted changes by
/// their indexes ends up with the same list.
@Suite struct TargetViewTests {
    static let todos = try! CollectionPath("todos")

    static func query(limit: Int?, descending: Bool = false) throws -> ListenTarget {
        let done = QueryField.field(try FieldPath("done"))
        let rank = QueryField.field(try FieldPath("rank"))
        return try ListenTarget(
            id: "todos",
            query: StructuredQuery(
                .collection(todos), filters: [Filter(done, .equal, false)],
                orderBy: [Order(rank, descending: descending)], limit: limit))
    }

    /// Runs `steps` random writes on 12 documents (plus some in another collection); documents with `secret`
    /// are not readable.
    static func run(_ target: ListenTarget, seed: UInt64, steps: Int = 400) throws -> (emitted: Int, refills: Int) {
        var random = SplitMix(state: seed)
        var model = Model()
        let readable: (Document) -> Bool = { $0.fields["secret"] != .bool(true) }
        var view = TargetView(target: target, documents: [], complete: true)
        var client = ClientView()
        var emitted = 0
        var refills = 0
        for step in 0..<steps {
            let collection = random.chance(90) ? todos : try CollectionPath("other")
            let path = try collection.document("t\(random.below(12))")
            var fields: JSONObject? = [
                "done": .bool(random.chance(30)), "rank": .int(Int64(random.below(6))),
            ]
            if random.chance(10) { fields?["secret"] = true }
            if random.chance(15) { fields = nil }
            let (_, after) = model.write(path, fields)
            let snapshot = model
            let changes = try view.apply(
                path: path, after: after, includes: { target.matches($0) && readable($0) },
                refill: { last, count in
                    refills += 1
                    // The model as of this write: the documents after `last`, in order.
                    let all = snapshot.documents.values.filter { target.matches($0) && readable($0) }
                        .sorted { target.compare($0, $1) < 0 }
                    let rest = last.map { last in all.filter { target.compare($0, last) > 0 } } ?? all
                    return (Array(rest.prefix(count)), rest.count <= count)
                })
            emitted += changes.count
            client.apply(changes)
            let expected = model.expected(target, readable: readable)
            #expect(view.documents == expected, "step \(step)")
            #expect(client.documents == expected, "step \(step): client \(client.problems)")
            if view.documents != expected || client.documents != expected { break }
        }
        #expect(client.problems.isEmpty)
        return (emitted, refills)
    }

    @Test("a query without limit: documents enter, move and leave", arguments: [1, 2, 3] as [UInt64])
    func unlimited(seed: UInt64) throws {
        let (emitted, _) = try Self.run(try Self.query(limit: nil), seed: seed)
        #expect(emitted > 100)
    }

    @Test("limit windows stay exact: the next document enters when one leaves", arguments: [4, 5, 6, 7] as [UInt64])
    func limited(seed: UInt64) throws {
        let (emitted, refills) = try Self.run(try Self.query(limit: 3, descending: seed % 2 == 0), seed: seed)
        #expect(emitted > 50)
        #expect(refills > 10)  // the scenario exercises windows that lose a document
    }

    @Test("a document target: added, modified and removed as it is created, changed and deleted")
    func document() throws {
        let target = try ListenTarget(id: "d", document: try DocumentPath("todos/t1"))
        let (emitted, refills) = try Self.run(target, seed: 9)
        #expect(emitted > 20)
        #expect(refills == 0)
    }

    @Test("the kinds of change: a to-do marked done leaves `done == false`, one reopened enters")
    func kinds() throws {
        let target = try Self.query(limit: nil)
        var model = Model()
        var view = TargetView(target: target, documents: [], complete: true)
        let path = try Self.todos.document("a")
        func write(_ fields: JSONObject?) throws -> [ListenChange.Kind] {
            let (_, after) = model.write(path, fields)
            return try view.apply(path: path, after: after, includes: target.matches, refill: { _, _ in ([], true) })
                .map(\.kind)
        }
        #expect(try write(["done": false, "rank": 1]) == [.added])
        #expect(try write(["done": false, "rank": 2]) == [.modified])
        #expect(try write(["done": true, "rank": 2]) == [.removed])
        #expect(try write(["done": true, "rank": 3]) == [])
        #expect(try write(["done": false, "rank": 3]) == [.added])
        #expect(try write(nil) == [.removed])
    }
}
