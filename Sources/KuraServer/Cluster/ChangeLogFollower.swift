import KuraCore
import KuraModel
import KuraRealtime
import KuraStore
import Synchronization

/// With several nodes on one database: follows the change log and forgets the cached documents that other nodes
/// wrote (this node's own commits already invalidated theirs before answering; seeing them again costs a re-read),
/// then wakes the realtime feed. Runs on a thread of its own (`kura-follow`), woken by the engine's commit
/// notifications (`ClusterEvent.documentsChanged`) and, in case one is lost, every `cluster.pollMilliseconds`.
///
/// The realtime feed reads the log through `FollowingStore`, which hands every page it reads here first: an entry
/// a listener receives has always been forgotten by this node's cache already, so a client that reads a document
/// on being told it changed never gets the older version from this node.
final class ChangeLogFollower: @unchecked Sendable {
    private let store: any DocumentStore
    private let cache: DocumentCache
    private let signal: ChangeSignal
    private let logger: Logger
    private let pollNanoseconds: UInt64
    private let thread = ServiceThread(name: "kura-follow")
    /// Every entry up to this sequence has been forgotten by the cache.
    private let position: Mutex<Int64>
    private static let pageSize = 500
    /// Stage times (`ListenerRegistry.timings`), when kept.
    private let timings: StageTimings?
    /// Wall-clock microseconds of the first notification since the last read (0: none), for `timings`.
    private let notifiedAt = Atomic<Int64>(0)

    /// Starts at the log's end: the cache of a node that is just starting holds nothing older.
    init(
        store: any DocumentStore, cache: DocumentCache, signal: ChangeSignal, pollSeconds: Double, logger: Logger,
        timings: StageTimings? = nil
    ) throws {
        self.store = store
        self.timings = timings
        self.cache = cache
        self.signal = signal
        self.logger = logger
        pollNanoseconds = UInt64(max(0.01, pollSeconds) * 1_000_000_000)
        position = Mutex(try store.latestSequence())
    }

    /// The sequence up to which other nodes' writes are forgotten (for tests).
    var followedThrough: Int64 { position.withLock { $0 } }

    func start() { thread.start { [self] in run() } }

    func stop() { thread.stop() }

    /// Reads the log now (a commit notification arrived).
    func wake() {
        if timings != nil {
            _ = notifiedAt.compareExchange(expected: 0, desired: WallClock.nowMicros(), ordering: .relaxed)
        }
        thread.wake()
    }

    /// Forgets every cached document, then reads the log (the node may have missed notifications).
    func resync() {
        cache.invalidateAll()
        thread.wake()
    }

    private func run() {
        var failing = false
        while !thread.isStopping {
            do {
                try catchUp()
                if failing { logger.info("cluster: reading the change log works again") }
                failing = false
            } catch {
                if !failing { logger.error("cluster: reading the change log failed: \(error); retrying") }
                failing = true
            }
            thread.sleep(nanoseconds: pollNanoseconds)
        }
    }

    /// Reads the log from this follower's position to its end; safe from any thread (the realtime feed calls it
    /// when it is about to read past the follower).
    func catchUp() throws {
        while !thread.isStopping {
            let after = position.withLock { $0 }
            let notified = timings == nil ? 0 : notifiedAt.exchange(0, ordering: .relaxed)
            let readStart = notified == 0 ? 0 : WallClock.nowMicros()
            let page = try store.changes(after: after, limit: Self.pageSize)
            if let timings, notified != 0, let first = page.first(where: { $0.sequence > after }) {
                timings.record("commit→notified", micros: notified - first.time)
                timings.record("notified→follower read", micros: readStart - notified)
                timings.record("follower read", micros: WallClock.nowMicros() - readStart)
            }
            if let first = page.first, first.sequence > after + 1, try store.oldestRetainedSequence() > after + 1 {
                // Pruned past this node's position: what it missed is unknowable, so it forgets everything.
                logger.warn("cluster: the change log was pruned past this node's position; forgetting its cache")
                cache.invalidateAll()
            }
            absorb(page, after: after)
            if page.count < Self.pageSize { return }
        }
    }

    /// Forgets the documents of the entries of `page` (read as `changes(after: after)`) not forgotten yet, and
    /// wakes the realtime feed when there were any. Pages that start beyond this follower's position teach it
    /// nothing (entries between would be skipped); they are left to `catchUp`.
    func absorb(_ page: [Change], after: Int64) {
        guard let last = page.last else { return }
        let fresh = position.withLock { position -> Bool in
            guard after <= position, last.sequence > position else { return false }
            let through = position
            cache.invalidate(page.filter { $0.sequence > through }.map(\.path))
            position = last.sequence
            return true
        }
        if fresh { signal.poke() }
    }
}

/// The store the realtime feed reads through when other nodes write: every page of the change log it reads passes
/// through `ChangeLogFollower.absorb` before the feed sees it.
final class FollowingStore: DocumentStoreDecorator {
    let base: any DocumentStore
    private let follower: ChangeLogFollower

    init(base: any DocumentStore, follower: ChangeLogFollower) {
        self.base = base
        self.follower = follower
    }

    func changes(after sequence: Int64, limit: Int) throws -> [Change] {
        // The feed can start past the follower (it skips ahead when nobody listens): the entries between must be
        // forgotten before the feed delivers anything after them.
        if follower.followedThrough < sequence { try follower.catchUp() }
        let page = try base.changes(after: sequence, limit: limit)
        follower.absorb(page, after: sequence)
        return page
    }

    func commit(_ writes: [Write]) throws -> [WriteResult] { try base.commit(writes) }

    func commit(_ writes: [Write], completion: @escaping @Sendable (Result<[WriteResult], any Error>) -> Void) {
        base.commit(writes, completion: completion)
    }
}
