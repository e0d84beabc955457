import Foundation
import KuraCore
import KuraModel
import KuraSQLite
import KuraStoreTestSupport
import KuraTestSupport
import Synchronization
import Testing

@testable import KuraSQLiteEngine
@testable import KuraStore

/// Checkpoints run off the writer, the WAL stays bounded, and background jobs (index build windows) take turns
/// with writes: the structure that keeps writes from stalling behind an index build (docs/architecture.md,
/// "Checkpoints").
@Suite struct SQLiteCheckpointTests {
    /// SQLite's own word on it: a connection whose WAL hook is not the auto-checkpoint reports
    /// `wal_autocheckpoint` 0, so the committing connection never copies the WAL into the database file.
    @Test func theWriterConnectionNeverCheckpoints() throws {
        let directory = try TemporaryDirectory("store")
        defer { directory.remove() }
        let store = try SQLiteDocumentStore(path: directory.path + "/kura.db")
        defer { store.close() }
        let autoCheckpoint = try store.writer.submit(size: 1) {
            try $0.connection.rows("PRAGMA wal_autocheckpoint").first?[0].int
        }
        #expect(autoCheckpoint == 0)
        try store.set(doc("c/a"), object(["x": .int(1)]))
        store.checkpointer.checkpointNow()
        #expect(store.checkpointer.current.checkpoints >= 1)
    }

    /// Closing the store copies the whole WAL into the database file and empties the WAL, so a copy of the
    /// database file alone, made after Kura stopped, holds every committed write.
    @Test func closingLeavesEveryWriteInTheDatabaseFile() throws {
        let directory = try TemporaryDirectory("store")
        defer { directory.remove() }
        let file = directory.path + "/kura.db"
        // A bound the writes stay under, so that no checkpoint runs before the close.
        let store = try SQLiteDocumentStore(.init(path: file, checkpointPages: 100_000))
        for i in 0..<50 { try store.set(doc("kept/d\(i)"), object(["i": .int(Int64(i))])) }
        let walBefore = try FileManager.default.attributesOfItem(atPath: file + "-wal")[.size] as? Int ?? 0
        #expect(walBefore > 0)
        store.close()
        let walAfter = (try? FileManager.default.attributesOfItem(atPath: file + "-wal")[.size] as? Int) ?? 0
        #expect(walAfter == 0)
        let copy = try TemporaryDirectory("copy")
        defer { copy.remove() }
        try FileManager.default.copyItem(atPath: file, toPath: copy.path + "/kura.db")
        let reopened = try SQLiteDocumentStore(path: copy.path + "/kura.db")
        defer { reopened.close() }
        #expect(try reopened.count(StructuredQuery(.collection(col("kept")))) == 50)
    }

    /// A long write load writes many times the bound through the WAL; the checkpointer copies it out and the WAL
    /// starts over again and again, never exceeding the bound by more than one commit's pages.
    @Test func theCheckpointerKeepsTheWALBelowItsBoundDuringALongWriteLoad() throws {
        let directory = try TemporaryDirectory("store")
        defer { directory.remove() }
        let file = directory.path + "/kura.db"
        let maxPages = 100
        let store = try SQLiteDocumentStore(
            .init(path: file, checkpointPages: 20, maxWALBytes: maxPages * 4096))
        defer { store.close() }
        let padding = JSONValue.string(String(repeating: "x", count: 3000))
        for i in 0..<600 {
            try store.set(doc("load/d\(i)"), object(["i": .int(Int64(i)), "pad": padding]))
        }
        let statistics = store.checkpointer.current
        // ~600 commits of a few pages each: many WALs' worth, so the WAL must have started over several times.
        #expect(statistics.restarts >= 5)
        #expect(statistics.checkpoints >= statistics.restarts)
        // One commit here writes well under 40 pages (a 3 KB document, its index entries and change-log entry).
        #expect(statistics.largestWALPages < maxPages + 40)
        let walBytes = try FileManager.default.attributesOfItem(atPath: file + "-wal")[.size] as? Int ?? 0
        #expect(walBytes <= (maxPages + 40) * (4096 + 24) + 32)
        #expect(try store.count(StructuredQuery(.collection(col("load")))) == 600)
    }

    /// The writer's batching with background jobs queued among writes: each window runs alone, and the writes
    /// queued behind a window wait for that window only (old: all four in one transaction, so `write2` waited for
    /// two windows).
    @Test func aWriteQueuedBehindABuildWindowWaitsForThatWindowOnly() throws {
        let directory = try TemporaryDirectory("store")
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.path + "/writer.db")
        try connection.execute("PRAGMA journal_mode = WAL")
        let writer = SQLiteWriter(connection: connection) { _ in }
        defer { writer.stop() }
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        writer.submit(
            size: 1,
            { _ in
                started.signal()
                release.wait()
            }
        ) { _ in }
        started.wait()
        let transactions = Mutex<[String: Int]>([:])
        let group = DispatchGroup()
        for (name, background) in [("window1", true), ("write1", false), ("window2", true), ("write2", false)] {
            group.enter()
            writer.submit(
                size: background ? 1000 : 1, background: background,
                { transaction in transactions.withLock { $0[name] = transaction.transactions } }
            ) { _ in group.leave() }
        }
        release.signal()
        group.wait()
        let t = transactions.withLock { $0 }
        let window1 = try #require(t["window1"])
        let window2 = try #require(t["window2"])
        let write1 = try #require(t["write1"])
        let write2 = try #require(t["write2"])
        #expect(window1 < write1)
        #expect(write1 == write2)
        #expect(write2 < window2)
    }

    /// The rule itself, case by case: `(queue as "size:b" for background, afterBackground) -> indices`.
    @Test(arguments: [
        (["1", "1", "1"], false, [0, 1, 2]),
        (["1000:b", "1", "1"], false, [0]),
        (["1000:b", "1", "1000:b", "1"], true, [1, 3]),
        (["1", "1000:b", "1"], false, [0]),
        (["1", "1000:b", "1"], true, [0, 2]),
        (["1000:b", "1000:b"], true, [0]),
        (["1500", "600", "1"], false, [0]),
        (["1500", "500", "1"], false, [0, 1]),
        (["2500", "1"], false, [0]),
    ])
    func nextBatch(queue: [String], afterBackground: Bool, expected: [Int]) {
        let jobs = queue.map { entry -> (size: Int, background: Bool) in
            (Int(entry.split(separator: ":")[0])!, entry.hasSuffix(":b"))
        }
        #expect(SQLiteWriterQueue.nextBatch(jobs, maxWrites: 2000, afterBackground: afterBackground) == expected)
    }

    /// Writes arriving all the time do not starve a build: after one batch of writes the window queued before
    /// the later writes runs.
    @Test func aBuildWindowWaitsForOneBatchOfWritesAtMost() {
        var queue: [(size: Int, background: Bool)] = [(1, false), (1000, true), (1, false), (1, false)]
        var afterBackground = false
        var order: [[Int]] = []
        let ids = Array(queue.indices)
        var remaining = ids
        while !queue.isEmpty {
            let taken = SQLiteWriterQueue.nextBatch(queue, maxWrites: 2000, afterBackground: afterBackground)
            order.append(taken.map { remaining[$0] })
            afterBackground = queue[taken[0]].background
            for index in taken.reversed() {
                queue.remove(at: index)
                remaining.remove(at: index)
            }
        }
        #expect(order == [[0], [1], [2, 3]])
    }
}
