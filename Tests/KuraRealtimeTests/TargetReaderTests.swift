import KuraCore
import KuraModel
import KuraSQLiteEngine
import KuraStore
import KuraTestSupport
import Testing

@testable import KuraRealtime

/// Reading a target as it was at a past sequence, from the store's current state rolled back through the change
/// log, against a model recorded at every sequence.
@Suite struct TargetReaderTests {
    static let items = try! CollectionPath("items")

    @Test("reads at past sequences equal the model at that sequence, with and without limits")
    func pastStates() throws {
        let directory = try TemporaryDirectory("realtime")
        defer { directory.remove() }
        let store = try SQLiteDocumentStore(path: directory.path + "/kura.db")
        defer { store.close() }
        var random = SplitMix(state: 77)
        var history: [Int64: [DocumentPath: Document]] = [0: [:]]
        var current: [DocumentPath: Document] = [:]
        for _ in 0..<300 {
            let path = try Self.items.document("d\(random.below(20))")
            if random.chance(15) {
                try store.delete(path)
                current[path] = nil
            } else {
                try store.set(path, ["rank": .int(Int64(random.below(8))), "on": .bool(random.chance(60))])
                current[path] = try store.get(path)
            }
            history[try store.latestSequence()] = current
        }
        let reader = TargetReader(store: store)
        let on = QueryField.field(try FieldPath("on"))
        let rank = QueryField.field(try FieldPath("rank"))
        var checked = 0
        for limit in [nil, 1, 4] as [Int?] {
            let target = try ListenTarget(
                id: "t",
                query: StructuredQuery(
                    .collection(Self.items), filters: [Filter(on, .equal, true)], orderBy: [Order(rank)],
                    limit: limit))
            let sequences = history.keys.sorted()
            for sequence in stride(from: 0, to: sequences.count, by: 5).map({ sequences[$0] }) {
                var model = Model()
                model.documents = history[sequence] ?? [:]
                let snapshot = try reader.read(target, at: sequence, readable: { _ in true })
                #expect(snapshot.sequence == sequence)
                #expect(
                    snapshot.documents == model.expected(target), "limit \(String(describing: limit)) at \(sequence)")
                checked += 1
            }
        }
        #expect(checked > 100)
        // A document target, and reading after a position (a refill).
        let doc = try ListenTarget(id: "d", document: try Self.items.document("d3"))
        let latest = try store.latestSequence()
        for sequence in [Int64(5), 150, latest] where history[sequence] != nil {
            let expected = history[sequence]?[try Self.items.document("d3")]
            #expect(
                try reader.read(doc, at: sequence, readable: { _ in true }).documents == (expected.map { [$0] } ?? []))
        }
        let window = try ListenTarget(
            id: "w",
            query: StructuredQuery(.collection(Self.items), filters: [Filter(on, .equal, true)], orderBy: [Order(rank)])
        )
        var model = Model()
        let middle = history.keys.sorted()[history.count / 2]
        model.documents = history[middle]!
        let all = model.expected(window)
        #expect(all.count > 3)
        if all.count > 3 {
            let next = try reader.read(window, at: middle, after: all[1], limit: 2, readable: { _ in true })
            #expect(next.documents == Array(all[2..<4]))
        }
    }

    @Test("a sequence the log no longer reaches, or one in the future, is refused")
    func outOfRange() throws {
        let directory = try TemporaryDirectory("realtime")
        defer { directory.remove() }
        let store = try SQLiteDocumentStore(path: directory.path + "/kura.db")
        defer { store.close() }
        for index in 0..<5 { try store.set(try Self.items.document("d\(index)"), ["n": .int(Int64(index))]) }
        let reader = TargetReader(store: store)
        let target = try ListenTarget(id: "t", query: StructuredQuery(.collection(Self.items)))
        #expect(throws: TargetReader.Failure.ahead) { _ = try reader.read(target, at: 99, readable: { _ in true }) }
        #expect(try reader.read(target, at: 2, readable: { _ in true }).documents.count == 2)
        try store.pruneChangeLog(olderThan: WallClock.nowMicros() + 1_000_000)
        try store.set(try Self.items.document("late"), [:])
        #expect(throws: TargetReader.Failure.logTooShort) {
            _ = try reader.read(target, at: 2, readable: { _ in true })
        }
    }
}
