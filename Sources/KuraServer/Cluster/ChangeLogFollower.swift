import KuraCore
import KuraEngine
import KuraModel
import KuraRealtime
import KuraStore
import Synchronization

/// With several nodes on one database: follows the change log and forgets the cached documents that other nodes
/// wrote (this node's own commits already invalidated theirs before answering; seeing them again costs a re-read),
/// then wakes the realtime feed. When a commit notification arrives (`ClusterEvent.documentsChanged`) the feed
/// reads the log if it has listeners (through `FollowingStore`), else the follower reads it on the cluster
/// channel's thread; a thread of its own (`kura-follow`) reads every `cluster.pollMilliseconds` in case one is
/// lost, after a failed read, and on `resync`.
///
/// The realtime feed reads the log through `FollowingStore`, which hands every page it reads here first: an entry
/// a listener receives has always been forgotten by this node's cache already, so a client that reads a document
/// on being told it changed never gets the older version from this node. The entries read last are kept
/// (`recentChanges`), so the feed, woken by this follower, takes them from memory instead of reading them from the
/// database a second time; and a notification of entries the feed has read already costs no read here.
final class ChangeLogFollower: Sendable {
    private let store: any DocumentStore
    private let cache: DocumentCache
    private let signal: ChangeSignal
    private let logger: Logger
    private let pollNanoseconds: UInt64
    private let thread = ServiceThread(name: "kura-follow")
    private let followed: Mutex<Followed>
    /// The newest sequence a commit notification announced.
    private let notified = Atomic<Int64>(0)
    /// Set by `wake`: the follower's thread reads the log whatever `notified` says.
    private let readRequested = Atomic<Bool>(false)
    private static let pageSize = 500
    /// How many of the entries read last are kept for the feed.
    static let recentCapacity = 512
    /// Stage times (`ListenerRegistry.timings`), when kept.
    private let timings: StageTimings?
    /// Wall-clock microseconds of the first notification since the last read (0: none), for `timings`.
    private let notifiedAt = Atomic<Int64>(0)

    /// What the follower has read.
    private struct Followed {
        /// Every entry up to this sequence has been forgotten by the cache.
        var through: Int64
        /// `recent` holds exactly the log's entries in `(recentAfter, through]`, oldest first.
        var recentAfter: Int64
        var recent: [Change] = []
    }

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
        let start = try store.latestSequence()
        followed = Mutex(Followed(through: start, recentAfter: start))
    }

    /// The sequence up to which other nodes' writes are forgotten (for tests).
    var followedThrough: Int64 { followed.withLock { $0.through } }

    func start() { thread.start { [self] in run() } }

    func stop() { thread.stop() }

    /// A commit notification arrived for the entries up to `through`: unless a reader already has them, reads
    /// them now on the calling thread (the cluster channel's: no hand-off to the follower's thread), or, when
    /// `feedReads` (the realtime feed has listeners), pokes the feed, which reads them through `FollowingStore`
    /// (so this follower still sees the page before the listeners do). The feed reading them itself, as it wakes,
    /// also finds whatever was committed since the notification. A failed read is left to the follower's thread,
    /// which retries and logs; its poll bounds how long a busy feed can leave the cache unread.
    func notified(through: Int64, feedReads: Bool = false) {
        notified.max(through, ordering: .releasing)
        guard followedThrough < through else { return }
        if feedReads { return signal.poke() }
        if timings != nil {
            _ = notifiedAt.compareExchange(expected: 0, desired: WallClock.nowMicros(), ordering: .relaxed)
        }
        do { try catchUp() } catch { thread.wake() }
    }

    /// Reads the log now, on the follower's thread.
    func wake() {
        readRequested.store(true, ordering: .releasing)
        thread.wake()
    }

    /// Forgets every cached document, then reads the log (the node may have missed notifications).
    func resync() {
        cache.invalidateAll()
        wake()
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
            // Woken for entries another reader (the realtime feed, through `FollowingStore`) has read already:
            // nothing to read until the next notification or the poll.
            while thread.sleep(nanoseconds: pollNanoseconds), !thread.isStopping, !failing,
                !readRequested.exchange(false, ordering: .acquiringAndReleasing),
                followedThrough >= notified.load(ordering: .acquiring)
            {}
        }
    }

    /// Reads the log from this follower's position to its end; safe from any thread (the realtime feed calls it
    /// when it is about to read past the follower). It reads only the entries' sequences and paths
    /// (`changedPaths`), all it needs to forget documents: the realtime feed reads the whole entries itself, through
    /// `FollowingStore`, when it has listeners. (With stage timings kept, it reads whole entries, for their times.)
    func catchUp() throws {
        while !thread.isStopping {
            let after = followedThrough
            let notified = timings == nil ? 0 : notifiedAt.exchange(0, ordering: .relaxed)
            let readStart = notified == 0 ? 0 : WallClock.nowMicros()
            let page: [ChangedPath]
            var entries: [Change]?
            if let timings, notified != 0 {
                let read = try store.changes(after: after, limit: Self.pageSize)
                if let first = read.first(where: { $0.sequence > after }) {
                    timings.record("commit→notified", micros: notified - first.time)
                    timings.record("notified→follower read", micros: readStart - notified)
                    timings.record("follower read", micros: WallClock.nowMicros() - readStart)
                }
                entries = read
                page = read.map { ChangedPath(sequence: $0.sequence, path: $0.path) }
            } else {
                page = try store.changedPaths(after: after, limit: Self.pageSize)
            }
            if let first = page.first, first.sequence > after + 1, try store.oldestRetainedSequence() > after + 1 {
                // Pruned past this node's position: what it missed is unknowable, so it forgets everything.
                logger.warn("cluster: the change log was pruned past this node's position; forgetting its cache")
                cache.invalidateAll()
            }
            if let entries { absorb(entries, after: after) } else { absorb(paths: page, after: after) }
            if page.count < Self.pageSize { return }
        }
    }

    /// Forgets the documents of the entries of `page` (read as `changes(after: after)`) not forgotten yet, keeps
    /// them for `recentChanges`, and wakes the realtime feed when there were any. Pages that start beyond this
    /// follower's position teach it nothing (entries between would be skipped); they are left to `catchUp`.
    func absorb(_ page: [Change], after: Int64) {
        absorb(paths: page.map { ChangedPath(sequence: $0.sequence, path: $0.path) }, entries: page, after: after)
    }

    /// The same for a page of `changedPaths(after: after)`: with no entries to keep, `recentChanges` starts again
    /// after the page.
    func absorb(paths page: [ChangedPath], after: Int64) {
        absorb(paths: page, entries: nil, after: after)
    }

    private func absorb(paths page: [ChangedPath], entries: [Change]?, after: Int64) {
        guard let last = page.last else { return }
        let fresh = followed.withLock { followed -> Bool in
            guard after <= followed.through, last.sequence > followed.through else { return false }
            // The page holds every entry after `after`, so those past `through` are the log's entries in
            // `(through, last]`: appended, `recent` stays the whole of `(recentAfter, last]`.
            let through = followed.through
            cache.invalidate(page.filter { $0.sequence > through }.map(\.path))
            if let entries {
                followed.recent += entries.filter { $0.sequence > through }
                let excess = followed.recent.count - Self.recentCapacity
                if excess > 0 {
                    followed.recentAfter = followed.recent[excess - 1].sequence
                    followed.recent.removeFirst(excess)
                }
            } else {
                followed.recent = []
                followed.recentAfter = last.sequence
            }
            followed.through = last.sequence
            return true
        }
        if fresh { signal.poke() }
    }

    /// Up to `limit` of the log's entries after `sequence`, taken from the entries this follower read last, all
    /// forgotten by the cache already; `nil` unless it holds the entry right after `sequence`. The page may stop
    /// short of the log's end (at this follower's position): the follower pokes the feed for what it reads next.
    func recentChanges(after sequence: Int64, limit: Int) -> [Change]? {
        followed.withLock { followed -> [Change]? in
            guard limit > 0, followed.recentAfter <= sequence, sequence < followed.through else { return nil }
            let recent = followed.recent
            // The first entry past `sequence` (the entries are in sequence order).
            var low = 0
            var high = recent.count
            while low < high {
                let middle = (low + high) / 2
                if recent[middle].sequence > sequence { high = middle } else { low = middle + 1 }
            }
            guard low < recent.count else { return nil }
            return Array(recent[low..<min(recent.count, low + limit)])
        }
    }
}

/// The store the realtime feed reads through when other nodes write: every page of the change log it reads passes
/// through `ChangeLogFollower.absorb` before the feed sees it, and entries the follower has just read are taken
/// from it instead of from the database.
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
        if let recent = follower.recentChanges(after: sequence, limit: limit) { return recent }
        let page = try base.changes(after: sequence, limit: limit)
        follower.absorb(page, after: sequence)
        return page
    }

    func commit(_ writes: [Write]) throws -> [WriteResult] { try base.commit(writes) }

    func commit(_ writes: [Write], completion: @escaping @Sendable (Result<[WriteResult], any Error>) -> Void) {
        base.commit(writes, completion: completion)
    }
}
