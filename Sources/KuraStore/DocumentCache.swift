import KuraCore
import KuraModel
import Synchronization

/// Encoded documents kept in memory, so that a GET of a hot document is answered on the event loop without a
/// trip to the worker pool and SQLite.
///
/// Staleness is ruled out with a generation counter. A reader takes a `readToken()` (the current generation)
/// *before* it reads from the store. A write, once durable and *before* it is acknowledged, invalidates its
/// paths with a new, higher generation. An insert is refused when its token is older than the path's slot, so a
/// read that raced a write can only fail to be cached, never bring back the older state. (A read that already saw
/// the new data but is inserted before the invalidation is simply dropped by it.) Evicting a slot raises a floor
/// below which inserts are refused, so forgetting an invalidation can't let an older read in either. With several
/// nodes (PostgreSQL), each node also invalidates the paths other nodes wrote, as it reads them from the change log
/// (`ChangeLogFollower` in KuraServer), and everything after it may have missed some (`invalidateAll`).
public final class DocumentCache: Sendable {
    /// A cached document: its API JSON, its version (the ETag) and its fields (for the security rules, which
    /// evaluate `resource.data` on the event loop without parsing the JSON again).
    ///
    /// A class, so that a slot holds one pointer: the cache also keeps an empty slot for every path written
    /// recently, and with the entry inline those slots cost 40 MB more per million writes (bench/docs.sh, rss_mb).
    public final class Entry: Sendable {
        /// The document as the API answers it.
        public let body: [UInt8]
        /// The document's version.
        public let version: Int64
        /// The document's data.
        public let fields: JSONObject

        init(body: [UInt8], version: Int64, fields: JSONObject) {
            self.body = body
            self.version = version
            self.fields = fields
        }
    }

    /// The most bytes of document JSON kept.
    public let capacityBytes: Int

    private struct Slot {
        var entry: Entry?
        var sequence: Int64
        var lastUsed: UInt64
        // The fields are counted at the size of their JSON again: a rough but stable estimate of their memory.
        var bytes: Int { (entry?.body.count ?? 0) * 2 + 64 }
    }

    private struct State {
        var slots: [DocumentPath: Slot] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        var floor: Int64 = 0
        var generation: Int64 = 0
    }

    private let state = Mutex(State())

    public init(capacityBytes: Int) { self.capacityBytes = max(0, capacityBytes) }

    /// The cached document at `path`, if any.
    public func lookup(_ path: DocumentPath) -> Entry? {
        state.withLock { state in
            // One hash of the path: found by index, touched in place.
            guard let index = state.slots.index(forKey: path), let entry = state.slots.values[index].entry else {
                return nil
            }
            state.clock &+= 1
            state.slots.values[index].lastUsed = state.clock
            return entry
        }
    }

    /// The token a reader takes before reading from the store, to pass to `insert`.
    public func readToken() -> Int64 { state.withLock { $0.generation } }

    /// Remembers `document`, read by a reader that took `readSequence` (its `readToken()`) before reading, and
    /// returns its encoding (also when it is not kept), so a caller answering with it encodes it once.
    @discardableResult
    public func insert(_ document: Document, readSequence: Int64) -> Entry {
        let entry = Entry(body: document.jsonBytes, version: document.version, fields: document.fields)
        // One huge document must not flush the rest.
        guard entry.body.count * 2 + 64 <= capacityBytes / 8 else { return entry }
        state.withLock { state in
            guard readSequence >= state.floor else { return }
            if let existing = state.slots[document.path], existing.sequence > readSequence { return }
            state.clock &+= 1
            store(Slot(entry: entry, sequence: readSequence, lastUsed: state.clock), at: document.path, in: &state)
        }
        return entry
    }

    /// Marks `paths` as changed; later lookups miss, and reads that began before now are not inserted.
    public func invalidate(_ paths: [DocumentPath]) {
        state.withLock { state in
            state.generation += 1
            for path in paths {
                state.clock &+= 1
                store(Slot(entry: nil, sequence: state.generation, lastUsed: state.clock), at: path, in: &state)
            }
        }
    }

    /// Forgets every cached document and refuses every read that began before now: for a node that may have missed
    /// other nodes' writes (its notifications connection dropped).
    public func invalidateAll() {
        state.withLock { state in
            state.generation += 1
            state.floor = state.generation
            state.slots.removeAll()
            state.bytes = 0
        }
    }

    /// Bytes held now (for tests and metrics).
    public var usedBytes: Int { state.withLock { $0.bytes } }

    private func store(_ slot: Slot, at path: DocumentPath, in state: inout State) {
        if let old = state.slots.updateValue(slot, forKey: path) { state.bytes -= old.bytes }
        state.bytes += slot.bytes
        if state.bytes > capacityBytes { evict(&state) }
    }

    /// Drops the least recently used quarter (at least down to 3/4 of capacity); amortised O(1) per insert.
    private func evict(_ state: inout State) {
        let byAge = state.slots.sorted { $0.value.lastUsed < $1.value.lastUsed }
        for (path, slot) in byAge {
            guard state.bytes > capacityBytes * 3 / 4 else { break }
            state.slots[path] = nil
            state.bytes -= slot.bytes
            state.floor = max(state.floor, slot.sequence)
        }
    }
}

/// A `DocumentStore` that keeps a `DocumentCache` coherent: every commit invalidates the paths it wrote once it is
/// durable and before it is acknowledged, and `get` fills the cache.
public final class CachedDocumentStore: DocumentStoreDecorator {
    public let base: any DocumentStore
    public let cache: DocumentCache

    public init(base: any DocumentStore, cache: DocumentCache) {
        self.base = base
        self.cache = cache
    }

    /// The document at `path` as API JSON with its version, encoded once and cached; nil when it does not exist.
    public func encodedDocument(_ path: DocumentPath) throws -> DocumentCache.Entry? {
        let token = cache.readToken()
        guard let document = try base.get(path) else { return nil }
        return cache.insert(document, readSequence: token)
    }

    public func get(_ path: DocumentPath) throws -> Document? {
        let token = cache.readToken()
        let document = try base.get(path)
        if let document { cache.insert(document, readSequence: token) }
        return document
    }

    public func commit(_ writes: [Write]) throws -> [WriteResult] {
        // Invalidated on failure too: it costs one re-read and covers an error raised after the data was written.
        defer { cache.invalidate(writes.map(\.path)) }
        return try base.commit(writes)
    }

    public func commit(
        _ writes: [Write], completion: @escaping @Sendable (Result<[WriteResult], any Error>) -> Void
    ) {
        let cache = self.cache
        // A successful create replaces "no document", which is never cached; a failed one changed nothing.
        let paths = writes.compactMap { write -> DocumentPath? in
            if case .create = write.operation { return nil }
            return write.path
        }
        base.commit(writes) { result in
            cache.invalidate(paths)
            completion(result)
        }
    }
}
