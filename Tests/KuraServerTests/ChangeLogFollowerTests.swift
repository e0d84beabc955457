import Foundation
import KuraCore
import KuraModel
import KuraServerTestSupport
import KuraStore
import KuraTestSupport
import Synchronization
import Testing

@testable import KuraRealtime
@testable import KuraServer

/// The change-log follower as a unit, on a SQLite node's store standing in for another node's writes: it forgets
/// exactly the documents written after its position, and ignores pages that start beyond it.
@Suite struct ChangeLogFollowerTests {
    /// A cache holding `paths` at version 1, as if this node had read them before.
    static func cache(holding paths: [String]) throws -> DocumentCache {
        let cache = DocumentCache(capacityBytes: 1 << 20)
        for path in paths {
            let document = Document(
                path: try DocumentPath(path), fields: ["n": .int(0)], createTime: 0, updateTime: 0, version: 1)
            cache.insert(document, readSequence: cache.readToken())
        }
        return cache
    }

    @Test("forgets the documents written after its position, and only those")
    func forgetsNewWrites() throws {
        try withTestKura { server in
            try server.put("items/old", ["n": 1])
            let cache = try Self.cache(holding: ["items/old", "items/a", "items/b"])
            let follower = try ChangeLogFollower(
                store: server.kura.store, cache: cache, signal: ChangeSignal(), pollSeconds: 3600,
                logger: Logger(level: .error))
            try server.put("items/a", ["n": 2])
            try follower.catchUp()
            #expect(cache.lookup(try DocumentPath("items/a")) == nil)
            #expect(cache.lookup(try DocumentPath("items/old")) != nil, "written before the follower started")
            #expect(cache.lookup(try DocumentPath("items/b")) != nil, "never written")
            #expect(follower.followedThrough == (try server.kura.store.latestSequence()))
        }
    }

    @Test("a page that starts past its position teaches it nothing; one that overlaps counts only what is new")
    func pagesPastThePosition() throws {
        try withTestKura { server in
            let cache = try Self.cache(holding: ["items/a", "items/b", "items/c"])
            let follower = try ChangeLogFollower(
                store: server.kura.store, cache: cache, signal: ChangeSignal(), pollSeconds: 3600,
                logger: Logger(level: .error))
            let start = follower.followedThrough
            for id in ["a", "b", "c"] { try server.put("items/\(id)", ["n": 1]) }
            let all = try server.kura.store.changedPaths(after: start, limit: 10)
            #expect(all.count == 3)
            // Starting after the first entry: the follower would skip it, so it takes nothing.
            follower.absorb(paths: Array(all.dropFirst()), after: all[0].sequence)
            #expect(follower.followedThrough == start)
            #expect(cache.lookup(try DocumentPath("items/b")) != nil)
            follower.absorb(paths: Array(all.prefix(1)), after: start)
            #expect(cache.lookup(try DocumentPath("items/a")) == nil)
            #expect(cache.lookup(try DocumentPath("items/b")) != nil)
            follower.absorb(paths: all, after: start)
            #expect(cache.lookup(try DocumentPath("items/b")) == nil)
            #expect(cache.lookup(try DocumentPath("items/c")) == nil)
            #expect(follower.followedThrough == all[2].sequence)
        }
    }

    /// A follower of `server`'s store whose change-log reads are counted.
    static func counted(_ server: TestKura, signal: ChangeSignal) throws -> (CountingReads, ChangeLogFollower) {
        let counting = CountingReads(base: server.kura.store)
        let follower = try ChangeLogFollower(
            store: counting, cache: try cache(holding: []), signal: signal, pollSeconds: 3600,
            logger: Logger(level: .error))
        return (counting, follower)
    }

    @Test("the feed takes the entries the follower read from it, exactly as the log has them, without reading again")
    func feedReadsWhatTheFollowerRead() throws {
        try withTestKura { server in
            let (counting, follower) = try Self.counted(server, signal: ChangeSignal())
            let start = follower.followedThrough
            for index in 0..<6 { try server.put("items/\(index % 4)", ["n": index]) }
            let feed = FollowingStore(base: counting, follower: follower)
            let log = try server.kura.store.changes(after: start, limit: 100)
            #expect(log.count == 6)
            #expect(try feed.changes(after: start, limit: 100) == log)
            #expect(counting.reads == 1)
            // Every position from the start to the end, every limit: the log's own page (or its prefix).
            for after in start..<log[5].sequence {
                for limit in [1, 2, 10] {
                    let expected = Array(log.filter { $0.sequence > after }.prefix(limit))
                    #expect(try feed.changes(after: after, limit: limit) == expected, "after \(after), limit \(limit)")
                }
            }
            #expect(counting.reads == 1, "the feed read the database again")
            // Past the follower's position the database answers (and the follower takes what it finds).
            try server.put("items/late", ["n": 1])
            let late = try feed.changes(after: log[5].sequence, limit: 10)
            #expect(late.map(\.path.description) == ["items/late"])
            #expect(counting.reads == 2)
            #expect(follower.followedThrough == late[0].sequence)
            #expect(try feed.changes(after: log[5].sequence, limit: 10) == late)
            #expect(counting.reads == 2)
            // The follower reads only paths: the feed then reads the whole entries from the database.
            try server.put("items/later", ["n": 1])
            try follower.catchUp()
            #expect(counting.reads == 2 && counting.pathReads == 1)
            #expect(follower.followedThrough == late[0].sequence + 1)
            #expect(follower.recentChanges(after: late[0].sequence, limit: 10) == nil)
            #expect(try feed.changes(after: late[0].sequence, limit: 10).map(\.path.description) == ["items/later"])
            #expect(counting.reads == 3)
        }
    }

    @Test("it keeps only the newest entries: older positions go to the database")
    func keepsTheNewestEntries() throws {
        try withTestKura { server in
            let (counting, follower) = try Self.counted(server, signal: ChangeSignal())
            let start = follower.followedThrough
            let kept = ChangeLogFollower.recentCapacity
            let writes = try (0..<(kept + 10)).map { index in
                Write(path: try DocumentPath("bulk/\(index)"), operation: .set(["n": .int(Int64(index))], merge: false))
            }
            for part in stride(from: 0, to: writes.count, by: 400) {
                _ = try server.kura.store.commit(Array(writes[part..<min(writes.count, part + 400)]))
            }
            _ = try FollowingStore(base: counting, follower: follower).changes(after: start, limit: 1000)
            let log = try server.kura.store.changes(after: start, limit: 1000)
            #expect(log.count == kept + 10)
            #expect(follower.recentChanges(after: start, limit: 10) == nil)
            #expect(follower.recentChanges(after: log[8].sequence, limit: 10) == nil)
            #expect(follower.recentChanges(after: log[9].sequence, limit: 3) == Array(log[10..<13]))
            #expect(follower.recentChanges(after: log[log.count - 1].sequence, limit: 3) == nil)
        }
    }

    @Test(
        "a commit notification reads the log on the notifying thread, unless a reader got there first or the feed will")
    func notificationReadsAtOnce() throws {
        try withTestKura { server in
            let signal = ChangeSignal()
            let (counting, follower) = try Self.counted(server, signal: signal)
            try server.put("items/a", ["n": 1])
            let latest = try server.kura.store.latestSequence()
            // Not started: only the call itself can have read.
            follower.notified(through: latest)
            #expect(follower.followedThrough == latest)
            #expect(counting.pathReads == 1)
            #expect(signal.wait(seconds: 0), "the feed was not poked")
            follower.notified(through: latest)
            #expect(counting.pathReads == 1, "read again for entries it had")
            // With listeners, the feed reads (through `FollowingStore`, which hands the page to the follower).
            try server.put("items/b", ["n": 1])
            let newer = try server.kura.store.latestSequence()
            follower.notified(through: newer, feedReads: true)
            #expect(counting.reads == 0 && counting.pathReads == 1)
            #expect(signal.wait(seconds: 0), "the feed was not poked")
            #expect(try FollowingStore(base: counting, follower: follower).changes(after: latest, limit: 10).count == 1)
            #expect(follower.followedThrough == newer)
        }
    }
}

/// Counts the change-log reads that reach the store.
final class CountingReads: DocumentStoreDecorator, @unchecked Sendable {
    let base: any DocumentStore
    private let count = Mutex(0)

    private let pathCount = Mutex(0)

    init(base: any DocumentStore) { self.base = base }

    /// Reads of whole entries (`changes`).
    var reads: Int { count.withLock { $0 } }
    /// Reads of sequences and paths (`changedPaths`).
    var pathReads: Int { pathCount.withLock { $0 } }

    func changes(after sequence: Int64, limit: Int) throws -> [Change] {
        count.withLock { $0 += 1 }
        return try base.changes(after: sequence, limit: limit)
    }

    func changedPaths(after sequence: Int64, limit: Int) throws -> [ChangedPath] {
        pathCount.withLock { $0 += 1 }
        return try base.changedPaths(after: sequence, limit: limit)
    }

    func commit(_ writes: [Write]) throws -> [WriteResult] { try base.commit(writes) }

    func commit(_ writes: [Write], completion: @escaping @Sendable (Result<[WriteResult], any Error>) -> Void) {
        base.commit(writes, completion: completion)
    }
}
