import KuraCore
import KuraModel
import KuraStore
import KuraStoreTestSupport
import Testing

/// Conformance: batched commits, transforms, atomicity, and the change log.
@Suite struct ConformanceCommitTests {
    @Test(arguments: EngineUnderTest.all)
    func commitReturnsVersionsAndOneTime(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        try h.store.set(doc("c/existing"), object(["v": 1]))
        let results = try h.store.commit([
            Write(path: try doc("c/new"), operation: .create(object(["v": 1]))),
            Write(path: try doc("c/existing"), operation: .update([(try field("v"), .int(2))])),
            Write(path: try doc("c/new"), operation: .set(object(["v": 3]), merge: true)),
            Write(path: try doc("c/gone"), operation: .delete),
        ])
        #expect(results.map(\.version) == [1, 2, 2, 0])
        #expect(Set(results.map(\.updateTime)).count == 1)
        #expect(try h.store.get(doc("c/new"))?.fields == object(["v": 3]))
        expectError(.invalidArgument) {
            _ = try h.store.commit(Array(repeating: Write(path: try doc("c/x"), operation: .delete), count: 501))
        }
        #expect(try h.store.commit([]).isEmpty)
    }

    @Test(arguments: EngineUnderTest.all)
    func commitIsAllOrNothing(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        try h.store.set(doc("c/a"), object(["v": 1]))
        let before = try h.store.latestSequence()
        expectError(.failedPrecondition, status: 412) {
            _ = try h.store.commit([
                Write(path: try doc("c/b"), operation: .set(object(["v": 1]), merge: false)),
                Write(path: try doc("c/a"), operation: .update([(try field("v"), .int(2))])),
                Write(path: try doc("c/a"), operation: .delete, precondition: .version(1)),
            ])
        }
        #expect(try h.store.get(doc("c/b")) == nil)
        #expect(try h.store.get(doc("c/a"))?.version == 1)
        #expect(try h.store.latestSequence() == before)
        expectError(.notFound) {
            _ = try h.store.commit([
                Write(path: try doc("c/b"), operation: .set(object(["v": 1]), merge: false)),
                Write(path: try doc("c/zz"), operation: .update([(try field("v"), .int(2))])),
            ])
        }
        #expect(try h.store.get(doc("c/b")) == nil)
        let q = StructuredQuery(.collection(try col("c")), filters: [Filter(.field(try field("v")), .equal, 1)])
        #expect(try h.store.query(q).documents.map(\.id) == ["a"])
    }

    @Test(arguments: EngineUnderTest.all)
    func transforms(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        let path = try doc("t/1")
        try h.store.set(path, object(["i": 5, "d": 1.5, "s": "x", "arr": [1, 2, 2, 3], "gone": true, "m": 10]))
        func t(_ name: String, _ kind: FieldTransform.Kind) throws -> FieldTransform {
            FieldTransform(field: try field(name), kind: kind)
        }
        let result = try h.store.commit([
            Write(
                path: path, operation: .update([]),
                transforms: [
                    try t("i", .increment(2)), try t("d", .increment(1)), try t("s", .increment(1)),
                    try t("new.count", .increment(1)), try t("big", .increment(.int(.max))),
                    try t("big", .increment(1)), try t("when", .serverTimestamp),
                    try t("arr", .arrayUnion([3, 4, 4, 1.0])), try t("rm", .arrayUnion(["a"])),
                    try t("arr", .arrayRemove([2])), try t("gone", .delete), try t("m", .maximum(7)),
                    try t("m2", .maximum(7)), try t("min", .minimum(2.5)), try t("m", .minimum(9.5)),
                ])
        ])
        let fields = try #require(try h.store.get(path)).fields
        #expect(fields["i"] == 7)
        #expect(fields["d"] == 2.5)
        #expect(fields["s"] == 1)
        #expect(fields["new"] == ["count": 1])
        #expect(fields["big"] == .int(.max))
        #expect(fields["when"] == .string(RFC3339.format(result[0].updateTime)))
        #expect(fields["arr"] == [1, 3, 4])
        #expect(fields["rm"] == ["a"])
        #expect(fields["gone"] == nil)
        #expect(fields["m"] == 9.5)
        #expect(fields["m2"] == 7)
        #expect(fields["min"] == 2.5)
        expectError(.invalidArgument) {
            _ = try h.store.commit([
                Write(path: path, operation: .update([]), transforms: [try t("i", .increment("x"))])
            ])
        }
    }

    @Test(arguments: EngineUnderTest.all)
    func transformsAreIndexed(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        let path = try doc("t/1")
        try h.store.set(path, object(["n": 1]))
        _ = try h.store.commit([
            Write(
                path: path, operation: .update([]),
                transforms: [FieldTransform(field: try field("n"), kind: .increment(41))])
        ])
        let q = StructuredQuery(.collection(try col("t")), filters: [Filter(.field(try field("n")), .equal, 42)])
        #expect(try h.store.query(q).documents.count == 1)
        let old = StructuredQuery(.collection(try col("t")), filters: [Filter(.field(try field("n")), .equal, 1)])
        #expect(try h.store.query(old).documents.isEmpty)
    }

    @Test(arguments: EngineUnderTest.all)
    func changeLogCarriesTheDocumentBeforeAndAfterEachWrite(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        let start = try h.store.latestSequence()
        let created = try h.store.create(doc("states/a"), object(["v": 1, "keep": "x"]))
        try h.store.update(doc("states/a"), [(try field("v"), .int(2))])
        try h.store.delete(doc("states/a"))
        try h.store.set(doc("states/b"), object(["w": true]))
        let changes = try h.store.changes(after: start, limit: 100)
        try #require(changes.count == 4)
        #expect(changes[0].before == nil)
        #expect(changes[0].after == created)
        #expect(changes[1].before == created)
        #expect(changes[1].after?.fields == object(["v": 2, "keep": "x"]))
        #expect(changes[1].after?.version == 2)
        #expect(changes[1].after?.createTime == created.createTime)
        #expect(changes[1].after?.updateTime == changes[1].time)
        #expect(changes[2].before == changes[1].after)
        #expect(changes[2].after == nil)
        #expect(changes[3].before == nil)
        #expect(changes[3].after?.fields == object(["w": true]))
    }

    @Test(arguments: EngineUnderTest.all)
    func createOfAnExistingDocumentFailsAndChangesNothing(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        let original = try h.store.create(doc("dup/a"), object(["n": 1]))
        let sequence = try h.store.latestSequence()
        #expect(throws: APIError.self) { try h.store.create(doc("dup/a"), object(["n": 2])) }
        // In a batch, the failed create takes the other writes with it.
        #expect(throws: APIError.self) {
            try h.store.commit([
                Write(path: try doc("dup/b"), operation: .create(object(["n": 3]))),
                Write(path: try doc("dup/a"), operation: .create(object(["n": 4]))),
            ])
        }
        #expect(try h.store.get(doc("dup/a")) == original)
        #expect(try h.store.get(doc("dup/b")) == nil)
        #expect(try h.store.latestSequence() == sequence)
        let query = StructuredQuery(.collection(try col("dup")), filters: [Filter(.field(try field("n")), .equal, 3)])
        #expect(try h.store.query(query).documents.isEmpty)
    }

    @Test(arguments: EngineUnderTest.all)
    func changeLogRecordsEveryWriteInOrder(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        let start = try h.store.latestSequence()
        try h.store.set(doc("log/a"), object(["v": 1]))
        try h.store.update(doc("log/a"), [(try field("v"), .int(2))])
        _ = try h.store.commit([
            Write(path: try doc("log/b"), operation: .create(object([:]))),
            Write(path: try doc("log/a"), operation: .delete),
        ])
        try h.store.delete(doc("log/missing"))
        let changes = try h.store.changes(after: start, limit: 100)
        #expect(changes.map(\.path.description) == ["log/a", "log/a", "log/b", "log/a"])
        #expect(changes.map(\.kind) == [.created, .updated, .created, .deleted])
        #expect(changes.map(\.version) == [1, 2, 1, 0])
        #expect(zip(changes, changes.dropFirst()).allSatisfy { $0.sequence < $1.sequence && $0.time <= $1.time })
        #expect(changes[2].time == changes[3].time)
        #expect(try h.store.latestSequence() == changes.last?.sequence)
        #expect(try h.store.changes(after: changes[1].sequence, limit: 1).map(\.sequence) == [changes[2].sequence])
        #expect(try h.store.oldestRetainedSequence() <= changes[0].sequence)
    }

    @Test(arguments: EngineUnderTest.all)
    func concurrentWritersAllLand(_ engine: EngineUnderTest) async throws {
        let h = try engine.make()
        let store = h.store
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for i in 0..<25 {
                        try store.set(doc("conc/w\(worker)-\(i)"), object(["w": .int(Int64(worker))]))
                        _ = try store.commit([
                            Write(
                                path: try doc("conc/counter"), operation: .set(object([:]), merge: true),
                                transforms: [FieldTransform(field: try field("n"), kind: .increment(1))])
                        ])
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.count(StructuredQuery(.collection(try col("conc")))) == 201)
        #expect(try store.get(doc("conc/counter"))?.fields["n"] == 200)
        let changes = try store.changes(after: 0, limit: 1000)
        #expect(changes.count == 400)
        #expect(Set(changes.map(\.sequence)).count == 400)
    }
}
