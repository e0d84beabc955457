import KuraCore
import KuraModel
import KuraStore

/// Reads a target's documents as they were at a given change-log sequence, exactly, from the store's current
/// state and the change log (whose entries carry each document before and after the write). Blocking: worker
/// pool or the change feed's thread.
///
/// A store query sees one snapshot somewhere between the sequences read just before (`s0`) and just after
/// (`s1`) it. Every document written after `min(s0, at)` is set to its state at `at` from the log: the `after` of
/// its last entry up to `at`, else the `before` of its first entry past `at`. Every other document did not change
/// in between, so the query saw it as it was at `at`. With a limit, the query reads extra documents and the part
/// of the results up to its last row is exact; when too few are left there it reads again with a larger limit.
struct TargetReader {
    let store: any DocumentStore

    /// Most documents one read of a limit query fetches while looking for enough readable ones.
    static let maxFetch = 50_000

    /// Why a target cannot be read at a sequence.
    enum Failure: Error, Equatable {
        /// The change log no longer reaches back to the sequence asked for.
        case logTooShort
        /// The sequence is beyond anything the store has written.
        case ahead
    }

    /// The documents of a read and the sequence they are exact at.
    struct Snapshot {
        var documents: [Document]
        /// Whether they are all the target's documents (false when a limit cut them off).
        var complete: Bool
        var sequence: Int64
    }

    /// The documents of `target` (first `limit`, after the position `after` if given) at sequence `at` (`nil`:
    /// the latest), keeping only those `readable` says the listener may read.
    func read(
        _ target: ListenTarget, at: Int64?, after: Document? = nil, limit: Int? = nil,
        readable: (Document) -> Bool
    ) throws -> Snapshot {
        switch target.kind {
        case .document(let path):
            return try readDocument(path, at: at, readable: readable)
        case .query(var query, let matcher):
            query.select = nil
            query.pageToken = nil
            var bounded = matcher
            if let after {
                query.pageToken = matcher.query.pageToken(after: after)
                bounded = try QueryMatcher(query)
            }
            let wanted = limit ?? query.limit
            return try readQuery(query, bounded, wanted: wanted, at: at, readable: readable)
        }
    }

    private func readDocument(_ path: DocumentPath, at: Int64?, readable: (Document) -> Bool) throws -> Snapshot {
        let s0 = try store.latestSequence()
        let current = try store.get(path)
        let s1 = try store.latestSequence()
        let target = at ?? s1
        let states = try statesAt(target, from: min(s0, target), to: s1) { $0 == path }
        let document: Document? = if let state = states[path] { state } else { current }
        let documents = document.map { readable($0) ? [$0] : [] } ?? []
        return Snapshot(documents: documents, complete: true, sequence: target)
    }

    private func readQuery(
        _ query: StructuredQuery, _ matcher: QueryMatcher, wanted: Int?, at: Int64?, readable: (Document) -> Bool
    ) throws -> Snapshot {
        var fetch = wanted.map { min($0 + 16, Self.maxFetch) }
        while true {
            var bounded = query
            bounded.limit = fetch
            let s0 = try store.latestSequence()
            let rows = try store.query(bounded).documents
            let s1 = try store.latestSequence()
            let target = at ?? s1
            let states = try statesAt(target, from: min(s0, target), to: s1) { matcher.inSource($0) }
            var candidates = rows.filter { states.index(forKey: $0.path) == nil }
            for case let (_, state?) in states where matcher.matches(state) { candidates.append(state) }
            candidates = candidates.filter(readable)
            candidates.sort { matcher.compare($0, $1) < 0 }
            guard let wanted, let fetched = fetch, rows.count >= fetched, let boundary = rows.last else {
                // The query read everything that matched (at its snapshot); the patched list is exact.
                let cut = wanted.map { candidates.count > $0 } ?? false
                if let wanted, cut { candidates.removeLast(candidates.count - wanted) }
                return Snapshot(documents: candidates, complete: !cut, sequence: target)
            }
            // Documents past the last row read are unknown: only the part up to it is exact.
            let known = candidates.prefix { matcher.compare($0, boundary) <= 0 }
            if known.count >= wanted || fetched >= Self.maxFetch {
                return Snapshot(documents: Array(known.prefix(wanted)), complete: false, sequence: target)
            }
            let missing = wanted - known.count
            fetch = min(Self.maxFetch, max(fetched * 4, fetched + missing * 4))
        }
    }

    /// For each document `covers` accepts that was written in `(from, to]`: its state at `at` (`nil` when it did
    /// not exist then). Throws `logTooShort` when the log starts after `from`, `ahead` when `at > to`.
    func statesAt(
        _ at: Int64, from: Int64, to: Int64, covers: (DocumentPath) -> Bool
    ) throws -> [DocumentPath: Document?] {
        guard at <= to else { throw Failure.ahead }
        var states: [DocumentPath: Document?] = [:]
        guard from < to else { return states }
        if try store.oldestRetainedSequence() > from + 1 { throw Failure.logTooShort }
        var frozen: Set<DocumentPath> = []
        var cursor = from
        while cursor < to {
            let page = try store.changes(after: cursor, limit: 1000)
            guard let first = page.first else { break }
            // Pruned between the check above and this read.
            if cursor == from && first.sequence > from + 1 { throw Failure.logTooShort }
            for change in page {
                if change.sequence > to { return states }
                cursor = change.sequence
                guard covers(change.path) else { continue }
                if change.sequence <= at {
                    states[change.path] = .some(change.after)
                } else if frozen.insert(change.path).inserted {
                    states[change.path] = .some(change.before)
                }
            }
        }
        return states
    }
}
