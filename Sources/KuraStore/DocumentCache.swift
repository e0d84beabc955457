import KuraCore
import Synchronization

/// Encoded documents kept in memory, so that a GET of a hot document is answered on the event loop without a
/// trip to the worker pool and SQLite.
///
/// Staleness is ruled out with the change-log sequence. Every slot carries the sequence it is valid at:
/// a write invalidates its paths at a sequence at least that of its commit, *before* the write is acknowledged;
/// a reader inserts what it read tagged with the latest sequence it saw *before* reading, and an insert never
/// replaces a slot with a higher sequence. So a read that raced a write can only fail to be cached, never
/// overwrite the newer state. Evicting a slot raises a floor below which inserts are refused, so forgetting an
/// invalidation can't let an older read in either. With several server processes (PostgreSQL), invalidation
/// must also follow other nodes' writes from the change log.
public final class DocumentCache: Sendable {
    /// A cached document: its API JSON and its version (the ETag).
    public struct Entry: Sendable {
        public let body: [UInt8]
        public let version: Int64
    }

    /// The most bytes of document JSON kept.
    public let capacityBytes: Int

    private struct Slot {
        var entry: Entry?
        var sequence: Int64
        var lastUsed: UInt64
        var bytes: Int { (entry?.body.count ?? 0) + 64 }
    }

    private struct State {
        var slots: [DocumentPath: Slot] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        var floor: Int64 = 0
    }

    private let state = Mutex(State())

    public init(capacityBytes: Int) { self.capacityBytes = max(0, capacityBytes) }

    /// The cached document at `path`, if any.
    public func lookup(_ path: DocumentPath) -> Entry? {
        state.withLock { state in
            guard var slot = state.slots[path], let entry = slot.entry else { return nil }
            state.clock &+= 1
            slot.lastUsed = state.clock
            state.slots[path] = slot
            return entry
        }
    }

    /// Remembers `document` as read by a reader that saw the change log up to `readSequence` before reading.
    public func insert(_ document: Document, readSequence: Int64) {
        let entry = Entry(body: document.json.jsonBytes, version: document.version)
        guard entry.body.count + 64 <= capacityBytes / 8 else { return }  // one huge document must not flush the rest
        state.withLock { state in
            guard readSequence >= state.floor else { return }
            if let existing = state.slots[document.path], existing.sequence > readSequence { return }
            state.clock &+= 1
            store(Slot(entry: entry, sequence: readSequence, lastUsed: state.clock), at: document.path, in: &state)
        }
    }

    /// Marks `paths` as changed at `sequence`; later lookups miss until a newer read is inserted.
    public func invalidate(_ paths: [DocumentPath], sequence: Int64) {
        state.withLock { state in
            for path in paths {
                state.clock &+= 1
                store(Slot(entry: nil, sequence: sequence, lastUsed: state.clock), at: path, in: &state)
            }
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

/// A `DocumentStore` that keeps a `DocumentCache` coherent: every commit invalidates the paths it wrote before
/// returning, and `cachedGet` fills the cache from reads.
public final class CachedDocumentStore: DocumentStore {
    public let base: any DocumentStore
    public let cache: DocumentCache

    public init(base: any DocumentStore, cache: DocumentCache) {
        self.base = base
        self.cache = cache
    }

    public func get(_ path: DocumentPath) throws -> Document? {
        let sequence = try base.latestSequence()
        let document = try base.get(path)
        if let document { cache.insert(document, readSequence: sequence) }
        return document
    }

    public func commit(_ writes: [Write]) throws -> [WriteResult] {
        do {
            let results = try base.commit(writes)
            cache.invalidate(writes.map(\.path), sequence: try base.latestSequence())
            return results
        } catch {
            // A failed commit changed nothing; invalidating anyway costs one re-read and covers an error raised
            // after the data reached the database.
            if let sequence = try? base.latestSequence() { cache.invalidate(writes.map(\.path), sequence: sequence) }
            throw error
        }
    }

    public func query(_ query: Query) throws -> QueryResult { try base.query(query) }
    public func count(_ query: Query) throws -> Int64 { try base.count(query) }
    public func changes(after sequence: Int64, limit: Int) throws -> [Change] {
        try base.changes(after: sequence, limit: limit)
    }
    public func oldestRetainedSequence() throws -> Int64 { try base.oldestRetainedSequence() }
    public func latestSequence() throws -> Int64 { try base.latestSequence() }
}
