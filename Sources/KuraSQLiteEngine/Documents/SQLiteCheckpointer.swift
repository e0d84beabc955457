import CSQLite
import Foundation
import KuraCore
import KuraSQLite
import Synchronization

/// Copies the write-ahead log into the database file on a thread and connection of its own, so the writer never
/// does checkpoint I/O.
///
/// SQLite's default is an *auto-checkpoint* run by the committing connection once the WAL holds 1000 pages: with
/// `synchronous=FULL` it writes every page of the WAL to the database file and fsyncs it, inside the writer's
/// COMMIT, while every queued write waits. An index build dirties many pages, so during one those checkpoints were
/// the multi-second write-latency tail (docs/design/performance.md). The writer connection's WAL hook replaces the
/// auto-checkpoint (SQLite then reports `PRAGMA wal_autocheckpoint` as 0 on it): after each commit it only notes
/// the WAL's size and, every `checkpointPages` pages, wakes this thread, which runs a PASSIVE checkpoint (it never
/// takes the writer's lock and copies only what no reader still needs). Once everything is copied and no reader
/// holds an old snapshot, the writer's next transaction starts the WAL over from its beginning, and
/// `PRAGMA journal_size_limit` truncates the file to `maxWALPages` pages then.
///
/// Bound: should the WAL reach `maxWALPages` anyway (the checkpointer fell behind a write burst), the writer waits,
/// before its next transaction, for one checkpoint pass that started after it asked. A reader holding an old
/// snapshot can still keep the WAL from starting over (it needs the pages); queries take milliseconds, so that
/// lasts as long as the longest read.
final class SQLiteCheckpointer: @unchecked Sendable {
    // `@unchecked`: every mutable field below is read and written with `condition` held; `connection` is used by
    // the checkpointer thread only.
    /// What the checkpointer has done, for the log and tests.
    struct Statistics: Sendable, Equatable {
        /// PASSIVE checkpoints run.
        var checkpoints = 0
        /// Checkpoints that could not copy the whole WAL because a reader still needed some of it.
        var partialCheckpoints = 0
        /// Times the writer waited for a checkpoint because the WAL had reached `maxWALPages`.
        var writerWaits = 0
        /// Times the WAL started over from its beginning (everything in it having been copied).
        var restarts = 0
        /// The largest WAL size (pages) any commit left.
        var largestWALPages = 0
        /// The WAL size (pages) after the last commit.
        var walPages = 0
        /// Total seconds spent checkpointing.
        var seconds = 0.0
    }

    /// WAL pages written between checkpoints.
    let checkpointPages: Int
    /// WAL size (pages) at which the writer waits for the checkpointer.
    let maxWALPages: Int
    private let connection: SQLiteConnection
    private let log: (@Sendable (String) -> Void)?
    private let condition = MonotonicCondition()
    private var statistics = Statistics()
    private var requested = false
    private var stopped = false
    private var passesStarted = 0
    private var passesFinished = 0
    /// The WAL size at which the next commit wakes the checkpointer.
    private var nextCheckpointAt: Int
    private let thread = ServiceThread(name: "kura-store-checkpointer")

    /// Opens a connection of its own to the database at `path` and starts the checkpointer thread.
    init(
        path: String, checkpointPages: Int = 1000, maxWALPages: Int = 16_384,
        log: (@Sendable (String) -> Void)? = nil
    ) throws {
        self.checkpointPages = max(1, checkpointPages)
        self.maxWALPages = max(self.checkpointPages, maxWALPages)
        self.nextCheckpointAt = self.checkpointPages
        self.log = log
        connection = try SQLiteConnection(path: path)
        // The checkpoint fsyncs the database file before the WAL may start over (as the writer's would have).
        try connection.execute("PRAGMA synchronous = FULL")
        // Never wait: a checkpoint that finds the database busy simply copies less and runs again later.
        sqlite3_busy_timeout(connection.raw, 0)
        thread.start { [unowned self] in self.run() }
    }

    /// Replaces `writer`'s auto-checkpoint with this checkpointer. The checkpointer must outlive every commit on
    /// `writer` (`SQLiteDocumentStore.close` stops the writer first).
    func attach(to writer: SQLiteConnection) throws {
        try writer.execute("PRAGMA journal_size_limit = \(maxWALPages * Self.pageSize(writer))")
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(
            writer.raw,
            { context, _, _, pages in
                guard let context else { return SQLITE_OK }
                Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(walPages: Int(pages))
                return SQLITE_OK
            }, context)
    }

    private static func pageSize(_ connection: SQLiteConnection) throws -> Int {
        Int(try connection.rows("PRAGMA page_size").first?[0].int ?? 4096)
    }

    /// A snapshot of the statistics.
    var current: Statistics { condition.withLock { statistics } }

    /// The statistics in words, for the log.
    var summary: String {
        let s = current
        let seconds = String(format: "%.1f", s.seconds)
        return "checkpoints so far: \(s.checkpoints) (\(seconds) s, \(s.partialCheckpoints) partial),"
            + " WAL restarted \(s.restarts) times, largest \(s.largestWALPages) pages,"
            + " writer waited for the checkpointer \(s.writerWaits) times"
    }

    /// Called on the writer thread after each commit (SQLite's WAL hook): notes the size, wakes the checkpointer
    /// every `checkpointPages` pages. No I/O here.
    private func committed(walPages pages: Int) {
        condition.lock()
        defer { condition.unlock() }
        if pages < statistics.walPages {  // the WAL started over
            nextCheckpointAt = checkpointPages
            statistics.restarts += 1
        }
        statistics.walPages = pages
        statistics.largestWALPages = max(statistics.largestWALPages, pages)
        if pages >= nextCheckpointAt {
            nextCheckpointAt = pages + checkpointPages
            requested = true
            condition.broadcast()
        }
    }

    /// Called on the writer thread before each transaction: when the WAL has reached `maxWALPages`, waits for one
    /// checkpoint pass that starts after this call.
    func beforeTransaction() {
        condition.lock()
        defer { condition.unlock() }
        guard statistics.walPages >= maxWALPages, !stopped else { return }
        statistics.writerWaits += 1
        let target = passesStarted + 1
        requested = true
        condition.broadcast()
        while passesFinished < target && !stopped { condition.wait() }
    }

    /// Runs one checkpoint now and waits for it (tests, tools).
    func checkpointNow() {
        condition.lock()
        defer { condition.unlock() }
        let target = passesStarted + 1
        requested = true
        condition.broadcast()
        while passesFinished < target && !stopped { condition.wait() }
    }

    /// Stops the thread (after a pass in progress).
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
        thread.join()
    }

    /// Stops the thread, then copies the whole WAL into the database file and truncates the WAL, so that the
    /// database file alone holds every committed write (a copy of it made after `kura` stopped is complete).
    /// Called at close, once the writer has stopped and the readers are gone; should a connection still hold
    /// part of the WAL, it stays, as SQLite replays it at the next open. A command that runs beside a server
    /// (`SQLiteConnection.keepsWALFiles`) skips it: a TRUNCATE checkpoint would hold up the server's writes.
    func finish() {
        stop()
        if SQLiteConnection.keepsWALFiles.load(ordering: .relaxed) { return }
        var walFrames: Int32 = 0
        var copied: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(connection.raw, nil, SQLITE_CHECKPOINT_TRUNCATE, &walFrames, &copied)
        if rc != SQLITE_OK {
            log?("store: the final checkpoint left the WAL in place (SQLite error \(rc)); the next open replays it")
        }
    }

    private func run() {
        var retry = false
        var retries = 0
        while true {
            condition.lock()
            if retry && !requested && !stopped {
                // A reader kept part of the WAL: try again shortly, as readers finish within milliseconds.
                condition.wait(untilNanoseconds: MonotonicClock.nanoseconds() + 5_000_000)
            }
            while !requested && !retry && !stopped { condition.wait() }
            if stopped {
                condition.unlock()
                return
            }
            requested = false
            passesStarted += 1
            condition.unlock()

            let began = MonotonicClock.nanoseconds()
            var walFrames: Int32 = 0
            var copied: Int32 = 0
            let rc = sqlite3_wal_checkpoint_v2(connection.raw, nil, SQLITE_CHECKPOINT_PASSIVE, &walFrames, &copied)
            let seconds = Double(MonotonicClock.nanoseconds() - began) / 1e9
            let partial = rc == SQLITE_OK && copied < walFrames
            // Retried for up to ~1 s; after that the next commit's wake-up tries again.
            retries = partial || (rc & 0xff) == SQLITE_BUSY ? retries + 1 : 0
            retry = retries > 0 && retries < 200

            condition.lock()
            passesFinished += 1
            statistics.checkpoints += 1
            if partial { statistics.partialCheckpoints += 1 }
            statistics.seconds += seconds
            condition.broadcast()
            condition.unlock()
            if seconds >= 1 || (rc != SQLITE_OK && (rc & 0xff) != SQLITE_BUSY) {
                log?(
                    "store: checkpoint of \(walFrames) WAL pages (\(copied) copied) took "
                        + String(format: "%.2f", seconds) + " s" + (rc == SQLITE_OK ? "" : ", SQLite error \(rc)"))
            }
        }
    }
}
