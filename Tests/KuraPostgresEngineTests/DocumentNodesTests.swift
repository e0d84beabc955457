import Foundation
import KuraCore
import KuraModel
import KuraPostgres
import KuraStore
import KuraStoreTestSupport
import KuraTestSupport
import Testing

@testable import KuraPostgresEngine

/// Several nodes on one database: each opens its own `PostgresDocumentStore` (its own pool and writer), as
/// separate processes would.
@Suite(TestPostgres.available)
struct DocumentNodesTests {
    static func node(_ url: String) throws -> PostgresDocumentStore {
        try PostgresDocumentStore(database: PostgresDatabase(url: url, poolSize: 4))
    }

    @Test("two nodes commit at once; a follower on a third never sees a gap or a late smaller sequence")
    func twoNodesAndAFollower() throws {
        let url = try TestPostgres.freshDatabase()
        let nodes = try (0..<2).map { _ in try Self.node(url) }
        let follower = try Self.node(url)
        defer { for store in nodes + [follower] { store.close() } }
        let perThread = 40
        let threadsPerNode = 3
        let running = Shared(nodes.count * threadsPerNode)
        var committers: [TestThread<[WriteResult]>] = []
        for (n, store) in nodes.enumerated() {
            for t in 0..<threadsPerNode {
                committers.append(
                    TestThread {
                        defer { running.withLock { $0 -= 1 } }
                        var results: [WriteResult] = []
                        for i in 0..<perThread {
                            // Some commits touch a document the other node writes too (a shared counter).
                            var writes = [
                                Write(
                                    path: try doc("race/n\(n)-t\(t)-\(i)"),
                                    operation: .set(["i": .int(Int64(i))], merge: false))
                            ]
                            if i % 4 == 0 {
                                writes.append(
                                    Write(
                                        path: try doc("race/counter"), operation: .set([:], merge: true),
                                        transforms: [FieldTransform(field: try field("n"), kind: .increment(1))]))
                            }
                            results += try store.commit(writes)
                        }
                        return results
                    })
            }
        }
        var last: Int64 = 0
        var seen: [Int64] = []
        var problems: [String] = []
        var reads = 0
        while true {
            let finished = running.current == 0
            var page = try follower.changes(after: last, limit: 13)
            while !page.isEmpty {
                reads += 1
                for change in page {
                    if change.sequence != last + 1 { problems.append("after \(last) came \(change.sequence)") }
                    last = max(last, change.sequence)
                    seen.append(change.sequence)
                }
                page = try follower.changes(after: last, limit: 13)
            }
            if finished { break }
            usleep(200)
        }
        let results = try committers.flatMap { try $0.join() }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        #expect(reads > 1)
        #expect(results.count == nodes.count * threadsPerNode * (perThread + perThread / 4))
        #expect(seen == Array(1...Int64(results.count)), "every entry exactly once, in order")
        #expect(try follower.latestSequence() == Int64(results.count))
        let counter = try follower.get(doc("race/counter"))
        #expect(counter?.fields["n"] == .int(Int64(nodes.count * threadsPerNode * perThread / 4)))
        let log = try follower.changes(after: 0, limit: 10_000)
        #expect(
            Set(log.map(\.path.description)).count == results.count - nodes.count * threadsPerNode * perThread / 4 + 1)
    }

    @Test("a commit batch sends NOTIFY kura_changes with its newest sequence")
    func notifiesOtherNodes() throws {
        let url = try TestPostgres.freshDatabase()
        let store = try Self.node(url)
        defer { store.close() }
        let listener = try PostgresConnection(url: url)
        try listener.listen("kura_changes")
        try store.set(doc("a/b"), ["x": 1])
        let received = try listener.notifications(waitingUpTo: .seconds(10))
        #expect(received.map(\.payload).last == String(try store.latestSequence()))
    }

    @Test("an index declared on one node is kept by the other node's writes")
    func indexDeclaredOnAnotherNode() throws {
        let url = try TestPostgres.freshDatabase()
        let (a, b) = (try Self.node(url), try Self.node(url))
        defer { for store in [a, b] { store.close() } }
        for i in 0..<50 { try a.set(doc("items/d\(i)"), ["cat": .int(Int64(i % 3)), "n": .int(Int64(i))]) }
        let query = StructuredQuery(
            .collection(try col("items")), filters: [Filter(.field(try field("cat")), .equal, 1)],
            orderBy: [Order(.field(try field("n")), descending: true)])
        let index = try #require(CompositeIndex.suggested(for: try NormalizedQuery(query)))
        try a.createIndex(index)
        a.waitForIndexJobs()
        // Node b never heard of the index; its next write batch learns of it and keeps it.
        try b.set(doc("items/new"), ["cat": 1, "n": 1000])
        try b.update(doc("items/d1"), [(try field("cat"), 2)])
        #expect(try a.explain(query).compositeIndexID != nil)
        let indexed = try a.query(query).documents.map(\.id)
        #expect(indexed.first == "new")
        #expect(!indexed.contains("d1"))
        #expect(indexed.count == 17)
    }

    @Test("backup on PostgreSQL refuses and names pg_dump")
    func backupRefuses() throws {
        var configuration = StoreConfiguration()
        configuration.postgres.url = "postgresql://localhost/nothing"
        let engine = PostgresEngine(configuration: configuration, dataDirectory: "/tmp")
        #expect(throws: APIError.self) { try engine.backupDocuments(to: "/tmp/x") }
        do { try engine.backupDocuments(to: "/tmp/x") } catch { #expect("\(error)".contains("pg_dump")) }
    }
}

/// The writer's batches: many commits share one transaction, and a failing commit fails alone.
@Suite(TestPostgres.available)
struct PostgresWriterBatchTests {
    @Test("commits queued together share a transaction; the failing ones fail alone")
    func failuresStayInTheirCommit() throws {
        let store = try PostgresDocumentStore(
            database: PostgresDatabase(url: try TestPostgres.freshDatabase(), poolSize: 2))
        defer { store.close() }
        try store.create(doc("b/existing"), ["v": 0])
        let before = store.writer.batchesCommitted.load(ordering: .relaxed)
        let count = 60
        let outcomes = Shared<[Int: Bool]>([:])
        let group = DispatchGroup()
        for i in 0..<count {
            group.enter()
            var writes = [Write(path: try doc("b/d\(i)"), operation: .create(["i": .int(Int64(i))]))]
            switch i % 3 {
            case 1: writes.append(Write(path: try doc("b/existing"), operation: .create(["v": 1])))
            case 2: writes = [Write(path: try doc("b/existing"), operation: .update([]), precondition: .version(9))]
            default: break
            }
            store.commit(writes) { result in
                outcomes.withLock { $0[i] = (try? result.get()) != nil }
                group.leave()
            }
        }
        group.wait()
        let batches = store.writer.batchesCommitted.load(ordering: .relaxed) - before
        #expect(batches < count / 3, "\(batches) transactions for \(count) commits")
        for i in 0..<count { #expect(outcomes.current[i] == (i % 3 == 0), "commit \(i)") }
        for i in 0..<count { #expect((try store.get(doc("b/d\(i)")) != nil) == (i % 3 == 0), "b/d\(i)") }
        #expect(try store.get(doc("b/existing"))?.version == 1)
        let log = try store.changes(after: 0, limit: 1000)
        #expect(log.count == 1 + count / 3)
        #expect(log.map(\.sequence) == Array(1...Int64(log.count)))
    }
}

extension DocumentNodesTests {
    @Test("two nodes incrementing the same few documents in every order lose no increment and fail no commit")
    func sharedDocumentsInAnyOrder() throws {
        let url = try TestPostgres.freshDatabase()
        let nodes = try (0..<2).map { _ in try Self.node(url) }
        defer { for store in nodes { store.close() } }
        let threads = (0..<6).map { t in
            TestThread { () -> Int in
                var generator = SplitMix(state: UInt64(t) &+ 11)
                var increments = 0
                for _ in 0..<25 {
                    // One or two of four documents, in a random order: batches on the two nodes lock them in
                    // different orders, so some deadlock and are retried.
                    let first = generator.below(4)
                    let picks = generator.below(2) == 0 ? [first] : [first, (first + 1 + generator.below(3)) % 4]
                    let writes = try picks.map { k in
                        Write(
                            path: try doc("shared/s\(k)"), operation: .set([:], merge: true),
                            transforms: [FieldTransform(field: try field("n"), kind: .increment(1))])
                    }
                    _ = try nodes[t % 2].commit(writes)
                    increments += writes.count
                }
                return increments
            }
        }
        let total = try threads.map { try $0.join() }.reduce(0, +)
        var sum: Int64 = 0
        for k in 0..<4 {
            if case .int(let n)? = try nodes[0].get(doc("shared/s\(k)"))?.fields["n"] { sum += n }
        }
        #expect(sum == Int64(total))
        #expect(try nodes[1].latestSequence() == Int64(total))
    }
}

extension PostgresWriterBatchTests {
    @Test("a single write whose statement fails (a composite key too long for a B-tree row) fails alone")
    func aFailingStatementFailsOnlyItsCommit() throws {
        let store = try PostgresDocumentStore(
            database: PostgresDatabase(url: try TestPostgres.freshDatabase(), poolSize: 2))
        defer { store.close() }
        try store.createIndex(
            CompositeIndex(
                collectionGroup: "k", fields: [.init(try field("a"), .ascending), .init(try field("s"), .ascending)]))
        store.waitForIndexJobs()
        var generator = SplitMix(state: 7)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let huge = String(decoding: (0..<12_000).map { _ in alphabet[generator.below(64)] }, as: UTF8.self)
        let count = 30
        let outcomes = Shared<[Int: Bool]>([:])
        let group = DispatchGroup()
        for i in 0..<count {
            group.enter()
            let value: JSONValue = i == count / 2 ? .string(huge) : .string("s\(i)")
            store.commit([Write(path: try doc("k/d\(i)"), operation: .set(["a": 1, "s": value], merge: false))]) {
                result in
                outcomes.withLock { $0[i] = (try? result.get()) != nil }
                group.leave()
            }
        }
        group.wait()
        for i in 0..<count { #expect(outcomes.current[i] == (i != count / 2), "commit \(i)") }
        #expect(try store.get(doc("k/d\(count / 2)")) == nil)
        #expect(try store.changes(after: 0, limit: 100).count == count - 1)
        #expect(try store.latestSequence() == Int64(count - 1))
    }

    @Test("pruning the change log keeps the numbering: the next entry follows the last one pruned")
    func pruningKeepsNumbers() throws {
        let store = try PostgresDocumentStore(
            database: PostgresDatabase(url: try TestPostgres.freshDatabase(), poolSize: 2))
        defer { store.close() }
        for i in 0..<3 { try store.set(doc("p/d\(i)"), ["i": .int(Int64(i))]) }
        #expect(try store.oldestRetainedSequence() == 1)
        try store.pruneChangeLog(olderThan: WallClock.nowMicros() + 1)
        #expect(try store.changes(after: 0, limit: 10).isEmpty)
        #expect(try store.oldestRetainedSequence() == 4)
        #expect(try store.latestSequence() == 3)
        try store.set(doc("p/d9"), ["i": 9])
        #expect(try store.changes(after: 0, limit: 10).map(\.sequence) == [4])
    }
}
