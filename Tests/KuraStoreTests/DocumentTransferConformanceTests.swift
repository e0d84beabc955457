import Foundation
import KuraCore
import KuraModel
import KuraStore
import KuraStoreTestSupport
import Testing

/// `DocumentTransfer` (what `kura export` / `kura import` use) on every engine: one snapshot whatever is written
/// meanwhile, the transfer order (collection path, then ID, as bytes) across pages, documents stored exactly with a
/// change-log entry each, and batches that are all or nothing.
@Suite struct DocumentTransferConformanceTests {
    static func transfer(_ harness: StoreHarness) throws -> any DocumentTransfer {
        try #require(harness.store as? any DocumentTransfer)
    }

    /// Every document of `snapshot`, `page` at a time.
    static func all(_ snapshot: any DocumentSnapshot, page: Int) throws -> [Document] {
        var found: [Document] = []
        while case let next = try snapshot.documents(after: found.last?.path, limit: page), !next.isEmpty {
            found += next
        }
        return found
    }

    /// Paths whose byte order differs from segment order and from `String` order in places: `a-b` sorts after `a`
    /// but `a-b/…` before `a/…` would as whole strings; `Z` before `a`; a decomposed `か\u{3099}` apart from `が`.
    static let paths = [
        "a/1", "a/2", "a/10", "a/Z", "a-b/x", "a/1/sub/y", "Z/q", "k/か\u{3099}", "k/が", "k/\u{1F600}", "a/1/sub/x",
    ]

    static func document(_ path: String, version: Int64 = 3) throws -> Document {
        Document(
            path: try DocumentPath(path), fields: ["p": .string(path), "f": .double(1.0), "n": ["x": .int(1)]],
            createTime: 1_600_000_000_000_001, updateTime: 1_600_000_000_500_002, version: version)
    }

    static func byteOrder(_ lhs: Document, _ rhs: Document) -> Bool {
        let (l, r) = (lhs.path.collection.description, rhs.path.collection.description)
        if l.utf8.elementsEqual(r.utf8) { return lhs.id.utf8.lexicographicallyPrecedes(rhs.id.utf8) }
        return l.utf8.lexicographicallyPrecedes(r.utf8)
    }

    @Test(
        "imports keep times and versions, list in transfer order in any page size, and log a change each",
        arguments: EngineUnderTest.all)
    func importAndList(_ engine: EngineUnderTest) throws {
        let harness = try engine.make()
        let transfer = try Self.transfer(harness)
        let documents = try Self.paths.map { try Self.document($0) }
        let before = try harness.store.latestSequence()
        try transfer.importDocuments(Array(documents.prefix(5)), replacing: false)
        try transfer.importDocuments(Array(documents.dropFirst(5)), replacing: false)
        for document in documents { #expect(try harness.store.get(document.path) == document) }
        let expected = documents.sorted(by: Self.byteOrder)
        for page in [1, 2, 3, 500] {
            let listed = try transfer.withDocumentSnapshot { try Self.all($0, page: page) }
            #expect(listed.map(\.path.description) == expected.map(\.path.description), "page \(page)")
            #expect(listed == expected)
        }
        // One sequence number per document. Entries stamped with an update time older than the retention are pruned
        // at the writer's next pass (here the first batch's), as any old entry is; those still there describe the
        // documents exactly.
        #expect(try harness.store.latestSequence() == before + Int64(documents.count))
        let changes = try harness.store.changes(after: before, limit: 100)
        #expect(changes.count <= documents.count)
        #expect(changes.allSatisfy { $0.kind == .created && $0.version == 3 && $0.time == 1_600_000_000_500_002 })
        for change in changes { #expect(change.after == documents.first { $0.path == change.path }) }
        // Queries see them through the single-field indexes.
        let query = StructuredQuery(.collection(try col("a")), filters: [Filter(.field(try field("n.x")), .equal, 1)])
        #expect(try harness.store.query(query).documents.count == 4)
    }

    @Test("a snapshot does not see writes made after it began", arguments: EngineUnderTest.all)
    func snapshot(_ engine: EngineUnderTest) throws {
        let harness = try engine.make()
        let transfer = try Self.transfer(harness)
        try transfer.importDocuments(try Self.paths.map { try Self.document($0) }, replacing: false)
        try transfer.withDocumentSnapshot { snapshot in
            #expect(try snapshot.documentCount() == Int64(Self.paths.count))
            try harness.store.create(try DocumentPath("a/0"), ["late": true])
            try harness.store.delete(try DocumentPath("k/が"))
            try harness.store.set(try DocumentPath("a/2"), ["changed": true])
            let listed = try Self.all(snapshot, page: 4)
            #expect(listed.count == Self.paths.count)
            #expect(listed.first { $0.path.description == "a/2" }?.version == 3)
            #expect(try snapshot.documentCount() == Int64(Self.paths.count))
        }
        #expect(try transfer.withDocumentSnapshot { try $0.documentCount() } == Int64(Self.paths.count))
    }

    @Test("a batch with an existing path stores nothing, unless replacing", arguments: EngineUnderTest.all)
    func existing(_ engine: EngineUnderTest) throws {
        let harness = try engine.make()
        let transfer = try Self.transfer(harness)
        try transfer.importDocuments([try Self.document("a/1")], replacing: false)
        #expect {
            try transfer.importDocuments(
                [try Self.document("a/new"), try Self.document("a/1", version: 9)], replacing: false)
        } throws: { ($0 as? APIError)?.code == .alreadyExists }
        #expect(try harness.store.get(try DocumentPath("a/new")) == nil)
        #expect(try harness.store.get(try DocumentPath("a/1"))?.version == 3)
        var replacement = try Self.document("a/1", version: 9)
        replacement.fields = ["other": .int(2)]
        replacement.createTime = 5
        try transfer.importDocuments([replacement, try Self.document("a/new")], replacing: true)
        #expect(try harness.store.get(try DocumentPath("a/1")) == replacement)
        let query = StructuredQuery(.collection(try col("a")), filters: [Filter(.field(try field("other")), .equal, 2)])
        #expect(try harness.store.query(query).documents.map(\.path.description) == ["a/1"])
        let old = StructuredQuery(.collection(try col("a")), filters: [Filter(.field(try field("f")), .equal, 1.0)])
        #expect(try harness.store.query(old).documents.map(\.path.description) == ["a/new"])
    }

    @Test("imported documents are in the composite indexes declared before", arguments: EngineUnderTest.all)
    func compositeIndexes(_ engine: EngineUnderTest) throws {
        let harness = try engine.make()
        let transfer = try Self.transfer(harness)
        let indexing = try #require(harness.store as? any CompositeIndexing)
        let index = try CompositeIndex(
            collectionGroup: "c", scope: .collection,
            fields: [.init(try field("a"), .ascending), .init(try field("b"), .descending)])
        let status = try indexing.createIndex(index)
        indexing.waitForIndexJobs()
        let documents = try (0..<30).map { i in
            Document(
                path: try DocumentPath("c/d\(i)"), fields: ["a": .int(Int64(i % 3)), "b": .int(Int64(i))],
                createTime: 1, updateTime: 2, version: 1)
        }
        try transfer.importDocuments(documents, replacing: false)
        let query = StructuredQuery(
            .collection(try col("c")), filters: [Filter(.field(try field("a")), .equal, 1)],
            orderBy: [Order(.field(try field("b")), descending: true)])
        let explained = try indexing.explain(query)
        #expect(explained.compositeIndexID == status.id)
        #expect(
            try harness.store.query(query).documents.map(\.id)
                == (0..<30).filter { $0 % 3 == 1 }.reversed().map { "d\($0)" })
    }
}
