import Foundation
import KuraCore
import KuraModel
import KuraRealtime
import KuraServerTestSupport
import KuraStore
import KuraTestSupport
import Testing

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
            follower.absorb(Array(all.dropFirst()), after: all[0].sequence)
            #expect(follower.followedThrough == start)
            #expect(cache.lookup(try DocumentPath("items/b")) != nil)
            follower.absorb(Array(all.prefix(1)), after: start)
            #expect(cache.lookup(try DocumentPath("items/a")) == nil)
            #expect(cache.lookup(try DocumentPath("items/b")) != nil)
            follower.absorb(all, after: start)
            #expect(cache.lookup(try DocumentPath("items/b")) == nil)
            #expect(cache.lookup(try DocumentPath("items/c")) == nil)
            #expect(follower.followedThrough == all[2].sequence)
        }
    }
}
