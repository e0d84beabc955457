import Foundation
import KuraCore
import KuraModel
import KuraPostgres
import KuraStore
import KuraStoreTestSupport
import KuraTestSupport
import Testing

@testable import KuraPostgresEngine

/// Single-create commits queued together run as one bulk insert (`PostgresWriteTransaction.createAll`), or, when
/// every collection is known to the node, as one create batch sent in one round trip (`sendCreateBatch`); each still
/// succeeds or fails alone, with its index entries, composite entries and change entry.
@Suite(TestPostgres.available)
struct PostgresBulkCreateTests {
    @Test(
        "creates queued together share one insert; existing and repeated paths fail alone",
        arguments: [true, false])
    func createsInBulk(newCollections: Bool) throws {
        let store = try PostgresDocumentStore(
            database: PostgresDatabase(url: try TestPostgres.freshDatabase(), poolSize: 2))
        defer { store.close() }
        try store.create(doc("bulk/existing"), ["cat": 9, "n": 0])
        let query = StructuredQuery(
            .collection(try col("bulk")), filters: [Filter(.field(try field("cat")), .equal, 1)],
            orderBy: [Order(.field(try field("n")), descending: true)])
        let index = try #require(CompositeIndex.suggested(for: try NormalizedQuery(query)))
        try store.createIndex(index)
        store.waitForIndexJobs()
        // The writer learns of the catalog the build changed (a create batch planned with an older one would be
        // turned back and run again as a usual batch).
        try store.create(doc("bulk/warm"), ["cat": 0, "n": -1])
        let before = store.writer.batchesCommitted.load(ordering: .relaxed)
        let createBatchesBefore = store.writer.createBatchesCommitted.load(ordering: .relaxed)
        let sequenceBefore = try store.latestSequence()
        let count = 60
        // i % 10 == 3: the existing document; i % 10 == 7: the same new path as every other such i (one wins);
        // i % 10 == 9: a collection never written before (with `newCollections`); else a new document.
        func path(_ i: Int) throws -> DocumentPath {
            switch i % 10 {
            case 3: try doc("bulk/existing")
            case 7: try doc("bulk/twice")
            case 9 where newCollections: try doc("fresh\(i)/d")
            default: try doc("bulk/d\(i)")
            }
        }
        let outcomes = Shared<[Int: Result<[WriteResult], any Error>]>([:])
        let group = DispatchGroup()
        for i in 0..<count {
            group.enter()
            let write = Write(
                path: try path(i),
                operation: .create(["cat": .int(Int64(i % 2)), "n": .int(Int64(i)), "tags": ["a", "b"]]))
            store.commit([write]) { result in
                outcomes.withLock { $0[i] = result }
                group.leave()
            }
        }
        group.wait()
        let batches = store.writer.batchesCommitted.load(ordering: .relaxed) - before
        #expect(batches < count / 2, "\(batches) transactions for \(count) creates")
        if !newCollections {
            // Every collection is known: the batches were create batches.
            #expect(store.writer.createBatchesCommitted.load(ordering: .relaxed) - createBatchesBefore == batches)
        }
        var twiceWinners = 0
        var created: [Int: WriteResult] = [:]
        for i in 0..<count {
            let result = try #require(outcomes.current[i])
            switch (i % 10, result) {
            case (3, .failure(let error)), (7, .failure(let error)):
                #expect((error as? APIError)?.code == .alreadyExists, "create \(i): \(error)")
            case (7, .success(let results)):
                twiceWinners += 1
                created[i] = results[0]
            case (3, .success):
                Issue.record("create \(i) of an existing document succeeded")
            case (_, .success(let results)):
                #expect(results.count == 1 && results[0].version == 1)
                created[i] = results[0]
            case (_, .failure(let error)):
                Issue.record("create \(i) failed: \(error)")
            }
        }
        #expect(twiceWinners == 1)
        for (i, result) in created {
            let at = try path(i)
            let stored = try #require(try store.get(at), "\(at)")
            #expect(stored.fields["n"] == .int(Int64(i)) && stored.version == 1)
            #expect(stored.updateTime == result.updateTime && stored.createTime == result.updateTime)
        }
        #expect(try store.get(doc("bulk/existing"))?.fields["n"] == .int(0))
        // The change log: one created entry per success, dense, in the order of their commit times.
        let log = try store.changes(after: sequenceBefore, limit: 1000)
        #expect(log.count == created.count)
        #expect(log.map(\.sequence) == Array((sequenceBefore + 1)...(sequenceBefore + Int64(log.count))))
        #expect(log.allSatisfy { $0.kind == .created })
        #expect(log.map(\.time) == log.map(\.time).sorted())
        #expect(Set(log.map(\.path)) == Set(try created.keys.map(path)))
        // Index entries (single-field, array elements) and composite entries were written with the documents.
        let expected = created.keys.filter { $0 % 2 == 1 && ($0 % 10 != 9 || !newCollections) }
        #expect(try store.explain(query).compositeIndexID != nil)
        let indexed = try store.query(query).documents.map(\.path)
        #expect(Set(indexed) == Set(try expected.map(path)))
        let tagged = StructuredQuery(
            .collection(try col("bulk")), filters: [Filter(.field(try field("tags")), .arrayContains, "b")])
        #expect(
            try store.query(tagged).documents.count
                == created.keys.filter { $0 % 10 != 9 || !newCollections }.count)
    }

    @Test("a create batch planned before another node declared an index writes that index's entries all the same")
    func createBatchAfterAnotherNodesIndex() throws {
        let url = try TestPostgres.freshDatabase()
        let writer = try PostgresDocumentStore(database: PostgresDatabase(url: url, poolSize: 2))
        let other = try PostgresDocumentStore(database: PostgresDatabase(url: url, poolSize: 2))
        defer {
            writer.close()
            other.close()
        }
        // The collection is known to the writing node, so its next creates go out as create batches.
        try writer.create(doc("late/first"), ["cat": 1, "n": 0])
        let query = StructuredQuery(
            .collection(try col("late")), filters: [Filter(.field(try field("cat")), .equal, 1)],
            orderBy: [Order(.field(try field("n")), descending: true)])
        let index = try #require(CompositeIndex.suggested(for: try NormalizedQuery(query)))
        // Declared and built by the other node: the writing node's catalog is now out of date.
        try other.createIndex(index)
        other.waitForIndexJobs()
        let createBatchesBefore = writer.writer.createBatchesCommitted.load(ordering: .relaxed)
        for n in 1...5 { try writer.create(doc("late/d\(n)"), ["cat": 1, "n": .int(Int64(n))]) }
        #expect(writer.writer.createBatchesCommitted.load(ordering: .relaxed) - createBatchesBefore == 4)
        // Read through the index on the node that built it (the writer would refresh its catalog first).
        #expect(try other.explain(query).compositeIndexID != nil)
        let found = try other.query(query).documents.map(\.path)
        #expect(found == (try (1...5).reversed().map { try doc("late/d\($0)") } + [doc("late/first")]))
    }

    @Test("a create batch writes its index entries before it takes the counter row other nodes' batches wait on")
    func indexEntriesBeforeTheCounter() throws {
        let url = try TestPostgres.freshDatabase()
        let store = try PostgresDocumentStore(database: PostgresDatabase(url: url, poolSize: 2))
        defer { store.close() }
        // The collection is known, so the next create goes out as a create batch.
        try store.create(doc("order/first"), ["cat": 1])
        let createBatchesBefore = store.writer.createBatchesCommitted.load(ordering: .relaxed)
        // Another "node" holds the counter row, as a batch committing elsewhere does.
        let holder = try PostgresConnection(url: url)
        try holder.execute("BEGIN")
        try holder.execute("SELECT last_value FROM \(ChangeSequence.table) FOR UPDATE")
        let done = Wakeup()
        let outcome = Shared<Result<[WriteResult], any Error>?>(nil)
        store.commit([Write(path: try doc("order/second"), operation: .create(["cat": 2]))]) { result in
            outcome.withLock { $0 = result }
            done.raise()
        }
        let probe = try PostgresConnection(url: url)
        var waiting = false
        for _ in 0..<200 where !waiting {
            let rows = try probe.query(
                """
                SELECT count(*) FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'WITH v AS%'
                """)
            waiting = try rows.int(0, 0) == 1
            if !waiting { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(waiting, "the create batch never waited for the counter row")
        // The batch's index entry for cat == 2 is in (uncommitted): inserting the same key waits for the batch.
        try probe.execute("SET lock_timeout = '300ms'")
        try probe.execute("BEGIN")
        #expect(throws: PostgresError.self) {
            try probe.query(
                "INSERT INTO idx(cid, field, kind, value, id) SELECT cid, $1, 0, $2, $3 FROM collections WHERE path = $4",
                [
                    PostgresRows.name("cat"), .bytes(PostgresRows.indexKey(.int(2))), PostgresRows.name("second"),
                    PostgresRows.name("order"),
                ])
        }
        try probe.execute("ROLLBACK")
        try holder.execute("ROLLBACK")
        done.wait()
        #expect(try outcome.current?.get().first?.version == 1)
        #expect(store.writer.createBatchesCommitted.load(ordering: .relaxed) - createBatchesBefore == 1)
        let query = StructuredQuery(
            .collection(try col("order")), filters: [Filter(.field(try field("cat")), .equal, 2)])
        #expect(try store.query(query).documents.map(\.path) == [try doc("order/second")])
    }

    @Test("a pool of one connection: batches commit one after the other without waiting for a second connection")
    func poolOfOne() throws {
        let store = try PostgresDocumentStore(
            database: PostgresDatabase(url: try TestPostgres.freshDatabase(), poolSize: 1))
        defer { store.close() }
        let count = 40
        let failures = Shared(0)
        let group = DispatchGroup()
        for i in 0..<count {
            group.enter()
            // Creates and updates alternate, so batches of both kinds follow each other.
            let write =
                i % 2 == 0
                ? Write(path: try doc("one/d\(i)"), operation: .create(["i": .int(Int64(i))]))
                : Write(path: try doc("one/shared"), operation: .set(["i": .int(Int64(i))], merge: false))
            store.commit([write]) { result in
                if case .failure = result { failures.withLock { $0 += 1 } }
                group.leave()
            }
        }
        group.wait()
        #expect(failures.current == 0)
        #expect(try store.changes(after: 0, limit: 100).map(\.sequence) == Array(1...Int64(count)))
    }
}
