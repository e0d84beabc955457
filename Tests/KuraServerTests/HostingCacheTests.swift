import Testing

@testable import KuraHosting

/// `FileCache` as a plain value: freshness, revalidation and its two bounds.
@Suite struct HostingCacheTests {
    static func file(_ size: Int) -> FileCache.Resolution {
        .file(
            StaticFile(
                body: [UInt8](repeating: 0x89, count: size), contentType: "image/png", cacheControl: "no-cache",
                modifiedSeconds: 0), identity(size))
    }

    static func identity(_ size: Int, modified: Int64 = 1) -> FileIdentity {
        FileIdentity(device: 1, inode: 2, size: Int64(size), modifiedNanos: modified)
    }

    @Test("an entry is fresh for the revalidation interval, then needs the disk again")
    func freshness() {
        var cache = FileCache(maxBytes: 1 << 20, maxEntries: 10)
        cache.store("/a.png", Self.file(10), now: 1_000)
        #expect(cache.lookup("/a.png", now: 1_500, freshFor: 1_000) != nil)
        #expect(cache.lookup("/a.png", now: 2_000, freshFor: 1_000) == nil)
        #expect(cache.revalidate("/a.png", identity: Self.identity(10), now: 2_000) != nil)
        #expect(cache.lookup("/a.png", now: 2_500, freshFor: 1_000) != nil)
        #expect(cache.revalidate("/a.png", identity: Self.identity(10, modified: 2), now: 3_000) == nil)
    }

    @Test("past hosting.cacheEntries the least recently used entries go")
    func entryBound() {
        var cache = FileCache(maxBytes: 1 << 20, maxEntries: 10)
        for i in 0..<10 { cache.store("/\(i)", .missing, now: 0) }
        _ = cache.lookup("/0", now: 0, freshFor: 1)  // used: kept
        cache.store("/new", .missing, now: 0)
        #expect(cache.count <= 10)
        #expect(cache.lookup("/0", now: 0, freshFor: 1) != nil)
        #expect(cache.lookup("/new", now: 0, freshFor: 1) != nil)
        #expect(cache.lookup("/1", now: 0, freshFor: 1) == nil)
    }

    @Test("past hosting.cacheBytes files are dropped, and a file larger than the cache is never kept")
    func byteBound() {
        var cache = FileCache(maxBytes: 1000, maxEntries: 100)
        for i in 0..<5 { cache.store("/\(i)", Self.file(300), now: 0) }
        #expect(cache.bytes <= 1000)
        #expect(cache.lookup("/4", now: 0, freshFor: 1) != nil)
        cache.store("/huge", Self.file(5000), now: 0)
        #expect(cache.lookup("/huge", now: 0, freshFor: 1) == nil)
        #expect(cache.bytes <= 1000)
    }
}
