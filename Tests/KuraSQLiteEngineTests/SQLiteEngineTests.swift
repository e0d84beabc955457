import Foundation
import KuraCore
import KuraModel
import KuraSQLite
import KuraStoreTestSupport
import KuraTestSupport
import Testing

@testable import KuraSQLiteEngine
@testable import KuraStore

/// Tests specific to the SQLite engine: reopening, index use, pruning, backup.
@Suite struct SQLiteEngineTests {
    @Test func opensADatabaseWhoseChangeLogPredatesDocumentStates() throws {
        let directory = try TemporaryDirectory("store")
        defer { directory.remove() }
        let file = directory.path + "/old.db"
        // A recent time: the writer prunes entries older than the retention right after its first batch.
        do {
            let old = try SQLiteConnection(path: file)
            try old.execute(
                """
                CREATE TABLE changes(seq INTEGER PRIMARY KEY AUTOINCREMENT, path TEXT NOT NULL,
                    kind INTEGER NOT NULL, version INTEGER NOT NULL, time INTEGER NOT NULL);
                INSERT INTO changes(path, kind, version, time) VALUES('a/b', 1, 1, \(WallClock.nowMicros()));
                """)
        }
        let store = try SQLiteDocumentStore(path: file)
        defer { store.close() }
        try store.set(doc("a/c"), object(["n": 1]))
        let changes = try store.changes(after: 0, limit: 10)
        #expect(changes.map(\.path.description) == ["a/b", "a/c"])
        try #require(changes.count == 2)
        #expect(changes[0].after == nil && changes[0].before == nil)
        #expect(changes[1].after?.fields == object(["n": 1]))
    }

    @Test("a REAL column reads back as the double it holds, never truncated to an integer")
    func realColumnsStayDoubles() throws {
        let directory = try TemporaryDirectory("store")
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.path + "/real.db")
        try connection.run("CREATE TABLE t (x)")
        try connection.run("INSERT INTO t VALUES (?), (?), (?)", [.double(2.75), .double(1e300), .int(3)])
        let values = try connection.rows("SELECT x FROM t ORDER BY rowid").map { $0[0] }
        #expect(values.map(\.double) == [2.75, 1e300, nil])
        #expect(values.map(\.int) == [nil, nil, 3])
    }

    @Test func reopenSeesEveryCommittedWrite() throws {
        let directory = try TemporaryDirectory("store")
        defer { directory.remove() }
        let file = directory.path + "/kura.db"
        var expected: [String: JSONValue] = [:]
        do {
            let store = try SQLiteDocumentStore(path: file)
            for i in 0..<50 {
                let path = "d/doc\(i % 20)"
                try store.set(doc(path), object(["i": .int(Int64(i))]))
                expected[path] = .int(Int64(i))
            }
            try store.delete(doc("d/doc0"))
            expected["d/doc0"] = nil
            // Leaving scope closes the store; a true kill -9 check needs a child process (see the report).
        }
        let reopened = try SQLiteDocumentStore(path: file)
        defer { reopened.close() }
        for i in 0..<20 {
            #expect(try reopened.get(doc("d/doc\(i)"))?.fields["i"] == expected["d/doc\(i)"])
        }
        #expect(try reopened.latestSequence() == 51)
        #expect(try reopened.count(StructuredQuery(.collection(col("d")))) == 19)
    }

    @Test func equalityOrderByLimitDoesNotScan() throws {
        let directory = try TemporaryDirectory("store")
        defer { directory.remove() }
        let store = try SQLiteDocumentStore(path: directory.path + "/kura.db")
        defer { store.close() }
        let statuses = ["open", "closed", "pending", "archived", "draft", "review", "done", "blocked", "new", "old"]
        try Self.loadBig(store) { statuses[$0 % 10] }
        let query = StructuredQuery(
            .collection(try col("big")), filters: [Filter(.field(try field("status")), .equal, "open")],
            orderBy: [Order(.field(try field("rank")), descending: true)], limit: 20)
        let diagnostics = try store.diagnose(query)
        #expect(diagnostics.documents == 20)
        #expect(diagnostics.fullScanSteps == 0, "\(diagnostics.plan)")
        #expect(!diagnostics.plan.contains { $0.hasPrefix("SCAN") }, "\(diagnostics.plan)")
        #expect(!diagnostics.plan.contains { $0.contains("TEMP B-TREE") }, "\(diagnostics.plan)")
        // ~200 index rows walked for 20 matches at 10 % selectivity; a scan would be ≥ 50 000 × several steps.
        #expect(diagnostics.vmSteps < 20_000, "\(diagnostics.vmSteps) steps")
        let ranks = try store.query(query).documents.compactMap { $0.fields["rank"] }
        #expect(ranks == ranks.sorted { ValueOrdering.compare($0, $1) > 0 })
        #expect(try store.query(query).documents.allSatisfy { $0.fields["status"] == "open" })

        let byID = StructuredQuery(
            .collection(try col("big")), filters: [Filter(.field(try field("status")), .equal, "done")], limit: 20)
        let idDiagnostics = try store.diagnose(byID)
        #expect(idDiagnostics.fullScanSteps == 0 && idDiagnostics.vmSteps < 20_000, "\(idDiagnostics)")
    }

    /// 50,000 documents in `big` with `status` from `status(i)` and a scattered integer `rank`.
    static func loadBig(_ store: SQLiteDocumentStore, total: Int = 50_000, status: (Int) -> String) throws {
        var writes: [Write] = []
        for i in 0..<total {
            let fields = object(["status": .string(status(i)), "rank": .int(Int64((i * 7919) % total))])
            writes.append(Write(path: try doc("big/d\(i)"), operation: .set(fields, merge: false)))
            if writes.count == 500 {
                _ = try store.commit(writes)
                writes = []
            }
        }
    }

    /// Walking `rank`'s index for a value almost no document has would examine the whole collection; the planner
    /// counts the value's matches first (index-only, capped) and drives by them when they are few.
    @Test(arguments: [("rare", 30), ("absent", 0)])
    func rareEqualityValueDoesNotScan(value: String, expected: Int) throws {
        let directory = try TemporaryDirectory("store")
        defer { directory.remove() }
        let store = try SQLiteDocumentStore(path: directory.path + "/kura.db")
        defer { store.close() }
        try Self.loadBig(store) { $0 % 1000 == 7 && $0 < 30_000 ? "rare" : "common" }
        for limit in [20, 5] {
            let query = StructuredQuery(
                .collection(try col("big")), filters: [Filter(.field(try field("status")), .equal, .string(value))],
                orderBy: [Order(.field(try field("rank")), descending: true)], limit: limit)
            let diagnostics = try store.diagnose(query)
            #expect(diagnostics.documents == min(expected, limit))
            #expect(diagnostics.fullScanSteps == 0, "\(diagnostics.plan)")
            #expect(diagnostics.vmSteps < 20_000, "\(diagnostics.vmSteps) steps: \(diagnostics.plan)")
            let documents = try store.query(query).documents
            #expect(documents.allSatisfy { $0.fields["status"] == .string(value) })
            let ranks = documents.compactMap { $0.fields["rank"] }
            #expect(ranks == ranks.sorted { ValueOrdering.compare($0, $1) > 0 })
            // Paging through the sorted matches yields each exactly once, in order.
            var seen: [String] = []
            var page = query
            repeat {
                let result = try store.query(page)
                seen += result.documents.map(\.id)
                page.pageToken = result.nextPageToken
            } while page.pageToken != nil
            #expect(seen.count == expected && Set(seen).count == expected)
        }
        #expect(
            try store.count(
                StructuredQuery(
                    .collection(try col("big")), filters: [Filter(.field(try field("status")), .equal, .string(value))],
                    orderBy: [Order(.field(try field("rank")))])) == Int64(expected))
    }

    @Test func pruningKeepsSequencesIncreasing() throws {
        let directory = try TemporaryDirectory("store")
        defer { directory.remove() }
        let store = try SQLiteDocumentStore(path: directory.path + "/kura.db")
        defer { store.close() }
        for i in 0..<5 { try store.set(doc("p/\(i)"), object(["i": .int(Int64(i))])) }
        #expect(try store.oldestRetainedSequence() == 1)
        try store.pruneChangeLog(olderThan: WallClock.nowMicros() + 1)
        #expect(try store.changes(after: 0, limit: 10).isEmpty)
        #expect(try store.oldestRetainedSequence() == 6)
        try store.set(doc("p/x"), object([:]))
        #expect(try store.changes(after: 0, limit: 10).map(\.sequence) == [6])
        #expect(try store.oldestRetainedSequence() == 6)
    }

    @Test func backupIsAConsistentCopy() throws {
        let directory = try TemporaryDirectory("store")
        defer { directory.remove() }
        let store = try SQLiteDocumentStore(path: directory.path + "/kura.db")
        defer { store.close() }
        for i in 0..<100 { try store.set(doc("b/\(i)"), object(["i": .int(Int64(i))])) }
        try store.backup(to: directory.path + "/copy.db")
        try store.set(doc("b/after"), object([:]))
        let copy = try SQLiteDocumentStore(path: directory.path + "/copy.db")
        defer { copy.close() }
        #expect(try copy.count(StructuredQuery(.collection(col("b")))) == 100)
        #expect(try copy.get(doc("b/42"))?.fields["i"] == 42)
        #expect(try copy.latestSequence() == 100)
        let q = StructuredQuery(
            .collection(try col("b")), filters: [Filter(.field(try field("i")), .greaterThanOrEqual, 98)])
        #expect(try copy.query(q).documents.count == 2)
    }

    @Test("a snapshot copied a page at a time, with commits between the steps, is the database as it was when taken")
    func snapshotCopiedInStepsIgnoresLaterCommits() throws {
        let directory = try TemporaryDirectory("store")
        defer { directory.remove() }
        let store = try SQLiteDocumentStore(path: directory.path + "/kura.db")
        defer { store.close() }
        let text = String(repeating: "k", count: 2000)
        for i in 0..<200 { try store.set(doc("b/\(i)"), object(["i": .int(Int64(i)), "t": .string(text)])) }
        let snapshot = try SQLiteSnapshot(databaseAt: directory.path + "/kura.db")
        #expect(snapshot.pageCount > 100)
        // Commits after the snapshot, and between every step of the copy: changed, new and deleted documents.
        for i in 0..<50 { try store.set(doc("b/\(i)"), object(["i": -1])) }
        var steps = 0
        try snapshot.copy(to: directory.path + "/copy.db", pagesPerStep: 1) { _ in
            steps += 1
            // A bounded number, so that a copy that restarted on each commit (no snapshot held) still ends, wrong.
            guard steps <= 20 else { return }
            _ = try? store.set(doc("b/new\(steps)"), object(["t": .string(text)]))
            _ = try? store.delete(doc("b/\(100 + steps % 100)"))
        }
        #expect(steps >= snapshot.pageCount)
        #expect(try SQLiteInspection.check(databaseAt: directory.path + "/copy.db", full: true) == ["ok"])
        let copy = try SQLiteDocumentStore(path: directory.path + "/copy.db")
        defer { copy.close() }
        #expect(try copy.count(StructuredQuery(.collection(col("b")))) == 200)
        for i in [0, 49, 50, 150, 199] {
            #expect(try copy.get(doc("b/\(i)"))?.fields["i"] == .int(Int64(i)))
        }
        #expect(try copy.latestSequence() == 200)
    }
}
