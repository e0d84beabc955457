/// What the hosting knows about request paths, bounded by bytes and entries; the least recently used give way.
/// Not thread-safe: `StaticSite` holds it in a mutex.
struct FileCache {
    /// What a path leads to.
    enum Resolution: Sendable {
        case file(StaticFile, FileIdentity)
        /// A file above `hosting.maxCachedFileBytes`: only where it is, read per request.
        case largeFile(path: String, identity: FileIdentity)
        case directory
        case missing

        var bytes: Int {
            guard case .file(let file, _) = self else { return 0 }
            return file.body.count + (file.gzipped?.count ?? 0)
        }
    }

    private struct Entry {
        var resolution: Resolution
        /// When the disk was last checked (monotonic nanoseconds).
        var checked: UInt64
        var lastUsed: UInt64
    }

    let maxBytes: Int
    let maxEntries: Int
    private var entries: [String: Entry] = [:]
    private(set) var bytes = 0
    private var clock: UInt64 = 0

    init(maxBytes: Int, maxEntries: Int) {
        self.maxBytes = maxBytes
        self.maxEntries = max(1, maxEntries)
    }

    /// The resolution of `key` if it was checked less than `freshFor` nanoseconds ago.
    mutating func lookup(_ key: String, now: UInt64, freshFor: UInt64) -> Resolution? {
        lookupChecked(key, now: now, freshFor: freshFor)?.resolution
    }

    /// Like `lookup`, with when the entry was checked (so a loop's memo of it expires at the same moment).
    mutating func lookupChecked(_ key: String, now: UInt64, freshFor: UInt64) -> (
        resolution: Resolution, checked: UInt64
    )? {
        guard let entry = entries[key], now &- entry.checked < freshFor else { return nil }
        clock &+= 1
        entries[key]?.lastUsed = clock
        return (entry.resolution, entry.checked)
    }

    /// The cached file of `key` if it is still `identity` (marked checked now), else nil.
    mutating func revalidate(_ key: String, identity: FileIdentity, now: UInt64) -> Resolution? {
        guard let entry = entries[key], case .file(_, let known) = entry.resolution, known == identity else {
            return nil
        }
        clock &+= 1
        entries[key]?.checked = now
        entries[key]?.lastUsed = clock
        return entry.resolution
    }

    /// Remembers `resolution` for `key`, then evicts until within bounds. A file larger than the whole cache is
    /// not kept (the next request reads it again).
    mutating func store(_ key: String, _ resolution: Resolution, now: UInt64) {
        if let old = entries.removeValue(forKey: key) { bytes -= old.resolution.bytes }
        guard resolution.bytes <= maxBytes else { return }
        clock &+= 1
        entries[key] = Entry(resolution: resolution, checked: now, lastUsed: clock)
        bytes += resolution.bytes
        guard bytes > maxBytes || entries.count > maxEntries else { return }
        // Evict in a batch, down to 90 % of each bound, so that a full cache does not sort on every store.
        let byAge = entries.sorted { $0.value.lastUsed < $1.value.lastUsed }
        for (oldKey, entry) in byAge where bytes > maxBytes * 9 / 10 || entries.count > maxEntries * 9 / 10 {
            guard oldKey != key else { continue }
            entries.removeValue(forKey: oldKey)
            bytes -= entry.resolution.bytes
        }
    }

    var count: Int { entries.count }
}
