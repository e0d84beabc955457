import Foundation
import KuraCore
import KuraModel
import KuraSQLite
import KuraTestSupport
import Synchronization
import Testing

@testable import KuraSQLiteEngine
@testable import KuraStore

/// The group-committing writer on its own: how one failing job in a batch is kept from affecting the others, and
/// how completions are called.
@Suite struct SQLiteWriterTests {
    /// A writer on a fresh database with a table `t(name TEXT UNIQUE)`.
    private final class Harness: Sendable {
        let directory: TemporaryDirectory
        let writer: SQLiteWriter
        let path: String

        init() throws {
            directory = try TemporaryDirectory("store")
            path = directory.path + "/writer.db"
            let connection = try SQLiteConnection(path: path)
            try connection.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(name TEXT UNIQUE)")
            writer = SQLiteWriter(connection: connection) { _ in }
        }

        func names() throws -> [String] {
            try SQLiteConnection(path: path, readOnly: true).rows("SELECT name FROM t ORDER BY name").compactMap {
                $0[0].text
            }
        }

        deinit {
            writer.stop()
            directory.remove()
        }
    }

    private struct Failure: Error {}

    /// The calling thread's task directory, `/proc/self/task/<tid>`, and its kernel name.
    private static func currentTask() -> (path: String, name: String) {
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
        let path = "/proc/" + link
        let name = (try? String(contentsOfFile: path + "/comm", encoding: .utf8)) ?? ""
        return (path, name.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("jobs run on a thread named kura-writer, completions on kura-write-acks, and stop() ends both")
    func namedThreads() throws {
        let harness = try Harness()
        let writer = try harness.writer.submit(size: 1) { _ in Self.currentTask() }
        /// Written on the acknowledgement thread before `done` is signalled, read here after.
        final class Recorded: @unchecked Sendable { var task: (path: String, name: String)? }
        let acknowledged = Recorded()
        let done = DispatchSemaphore(value: 0)
        harness.writer.submit(size: 1, { _ in 0 }) { _ in
            acknowledged.task = Self.currentTask()
            done.signal()
        }
        done.wait()
        let acks = try #require(acknowledged.task)
        #expect(writer.name == "kura-writer")
        #expect(acks.name == "kura-write-acks")
        #expect(FileManager.default.fileExists(atPath: writer.path))
        harness.writer.stop()
        #expect(!FileManager.default.fileExists(atPath: writer.path))
        #expect(!FileManager.default.fileExists(atPath: acks.path))
    }

    @Test("the write transaction used off the writer thread (handed out by a job) stops the process")
    func transactionUsedOffTheWriterThreadTraps() async {
        await #expect(processExitsWith: .failure) {
            let h = try Harness()
            /// The job's transaction, smuggled out of the job: what the writer-thread check is for.
            final class Leak: @unchecked Sendable { var transaction: SQLiteWriteTransaction? }
            let leak = Leak()
            try h.writer.submit(size: 1) { leak.transaction = $0 }
            _ = try leak.transaction?.connection.rows("SELECT 1")
        }
    }

    /// Queues `jobs` so that they land in one batch: the writer is held busy by a slow job while they queue.
    private func runInOneBatch(
        _ h: Harness, _ jobs: [(selfContained: Bool, work: @Sendable (SQLiteWriteTransaction) throws -> Void)]
    ) -> [Bool] {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        h.writer.submit(
            size: 1,
            { _ in
                started.signal()
                release.wait()
            }
        ) { _ in }
        started.wait()
        let group = DispatchGroup()
        let outcomes = Mutex([Bool](repeating: false, count: jobs.count))
        for (index, job) in jobs.enumerated() {
            group.enter()
            h.writer.submit(size: 1, selfContained: job.selfContained, job.work) { result in
                if case .success = result { outcomes.withLock { $0[index] = true } }
                group.leave()
            }
        }
        release.signal()
        group.wait()
        return outcomes.withLock { $0 }
    }

    private static func insert(_ name: String) -> @Sendable (SQLiteWriteTransaction) throws -> Void {
        { try $0.connection.run("INSERT INTO t(name) VALUES(?)", [.text(name)]) }
    }

    @Test func selfContainedJobThatFailsAfterChangingRowsIsUndoneAndTheBatchStillCommits() throws {
        let h = try Harness()
        let outcomes = runInOneBatch(
            h,
            [
                (true, Self.insert("a")),
                (
                    true,
                    { transaction in
                        try Self.insert("b")(transaction)
                        throw Failure()
                    }
                ),
                (false, Self.insert("c")),
                (true, Self.insert("d")),
            ])
        #expect(outcomes == [true, false, true, true])
        #expect(try h.names() == ["a", "c", "d"])
    }

    @Test func selfContainedJobWhoseOnlyStatementFailsLeavesTheOthersAlone() throws {
        let h = try Harness()
        let outcomes = runInOneBatch(
            h, [(true, Self.insert("a")), (true, Self.insert("a")), (true, Self.insert("b"))])
        #expect(outcomes == [true, false, true])
        #expect(try h.names() == ["a", "b"])
    }

    @Test func jobWithSavepointRollsBackAlone() throws {
        let h = try Harness()
        let outcomes = runInOneBatch(
            h,
            [
                (
                    false,
                    { transaction in
                        try Self.insert("x")(transaction)
                        throw Failure()
                    }
                ),
                (true, Self.insert("y")),
            ])
        #expect(outcomes == [false, true])
        #expect(try h.names() == ["y"])
    }

    /// The writer does not wait for completions: a batch commits while an earlier batch's completion is still
    /// running, and completions are still called in commit order.
    @Test func completionsRunInCommitOrderOffTheWriter() throws {
        let h = try Harness()
        let order = Mutex<[String]>([])
        let inFirstCompletion = DispatchSemaphore(value: 0)
        let releaseFirst = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        done.enter()
        h.writer.submit(size: 1, Self.insert("a")) { _ in
            inFirstCompletion.signal()
            releaseFirst.wait()
            order.withLock { $0.append("a") }
            done.leave()
        }
        inFirstCompletion.wait()
        done.enter()
        h.writer.submit(size: 1, Self.insert("b")) { _ in
            order.withLock { $0.append("b") }
            done.leave()
        }
        // "b" commits although "a"'s completion has not returned.
        var names: [String] = []
        for _ in 0..<500 where names != ["a", "b"] {
            names = try h.names()
            if names != ["a", "b"] { usleep(10_000) }
        }
        #expect(names == ["a", "b"])
        #expect(order.withLock { $0 }.isEmpty)
        releaseFirst.signal()
        done.wait()
        #expect(order.withLock { $0 } == ["a", "b"])
    }
}
