import Foundation
import KuraCore
import KuraModel
import KuraSQLite
import KuraStore
import Synchronization

/// Declaring, building and dropping composite indexes.
///
/// A new index is recorded as CREATING in one writer transaction; from then on every write keeps its entries.
/// The existing documents are then indexed in the background, in two passes:
/// 1. Read connections scan the documents (a window of row ids per read transaction) and compute their entries,
///    with each document's version and data fingerprint, into a sorted scratch store
///    (`SQLiteIndexBuildEntries`). The writer is not involved.
/// 2. The writer adds the entries in key order, a run of them per writer transaction (a *step*), re-reading each
///    entry's document: an unchanged one gets the precomputed entry, one changed since the scan gets the entries
///    of what it holds now, a deleted one none (the writes that changed them kept their entries meanwhile).
///    Neighbouring keys share `cidx` pages, so a step's COMMIT writes and syncs a few pages rather than one per
///    entry, and writes queued behind a step wait for little. Steps last about
///    `configuration.indexBuildStepSeconds` of work each, a write queued while a step works ends it after at most
///    16 more entries (`SQLiteWriter.writesWaiting`), and the writes queued meanwhile go before the next step.
/// The step that adds the last entry marks the index READY in the database, and once that step is durable the
/// planner starts using it. A restart starts an unfinished build over (the entries already written stay; adding
/// them again changes nothing).
extension SQLiteDocumentStore {
    /// Entries of the first build step (one writer transaction); later steps are sized so that each takes about
    /// `configuration.indexBuildStepSeconds` (how long a write may wait behind one step), within `buildWindows`.
    static let buildWindow: Int64 = 1000
    /// Smallest and largest build steps, in entries.
    static let buildWindows: ClosedRange<Int64> = 100...20_000
    /// Document row ids read per read transaction when a build scans the documents.
    static let scanWindow: Int64 = 5000
    /// Entries deleted per step when an index is dropped.
    static let dropBatch = 5000

    /// Every composite index and its state.
    public var compositeIndexes: [CompositeIndexStatus] { composites.all }

    /// Declares `index` and starts building it; returns the existing one when the same definition is declared.
    @discardableResult
    public func createIndex(_ index: CompositeIndex) throws -> CompositeIndexStatus {
        if let existing = composites.status(of: index) { return existing }
        let (iid, created) = try writer.submit(size: 1) { transaction -> (Int64, Bool) in
            if let existing = transaction.composites.status(of: index) { return (existing.id, false) }
            return (try transaction.insertCompositeIndex(index), true)
        }
        guard created, let status = composites.status(id: iid) else {
            return composites.status(id: iid)
                ?? CompositeIndexStatus(id: iid, index: index, state: .creating, documentsScanned: 0)
        }
        configuration.log?("index \(iid) \(index): CREATING (building in the background)")
        startBuild(iid)
        return status
    }

    /// Drops the index with `id` (queries stop using it at once; its entries are deleted in the background).
    /// `false` when there is no such index.
    public func dropIndex(id: Int64) -> Bool {
        guard let status = composites.status(id: id) else { return false }
        composites.remove(id)
        configuration.log?("index \(id) \(status.index): dropped")
        indexJobs.async { [self] in
            while !indexBuildsStopped.isSet {
                let more =
                    (try? writer.submit(size: 1, background: true) {
                        try $0.dropCompositeEntries(id, batch: Self.dropBatch)
                    })
                if more != true { break }
            }
        }
        return true
    }

    /// Blocks until every index build and drop started so far has finished (tests, tools).
    public func waitForIndexJobs() { indexJobs.sync {} }

    /// Builds index `iid` in the background.
    func startBuild(_ iid: Int64) {
        indexJobs.async { [self] in
            guard let status = composites.status(id: iid) else { return }
            do {
                try build(iid, status.index)
            } catch {
                if indexBuildsStopped.isSet { return }
                composites.update(iid) {
                    $0.state = .error
                    $0.message = "\(error)"
                }
                try? writer.submit(size: 1) { transaction in
                    try transaction.connection.run(
                        "UPDATE composite_indexes SET state = 'ERROR', message = ? WHERE iid = ?",
                        [.text("\(error)"), .int(iid)])
                }
                configuration.log?("index \(iid) \(status.index): ERROR \(error)")
            }
        }
    }

    /// Whether the build of `iid` should go on (the store is open and the index not dropped).
    private func building(_ iid: Int64) -> Bool {
        !indexBuildsStopped.isSet && composites.status(id: iid) != nil
    }

    /// The two passes of a build (see the type's documentation); returns early when the store closes or the
    /// index is dropped.
    private func build(_ iid: Int64, _ index: CompositeIndex) throws {
        let started = MonotonicClock.seconds()
        var lastReport = started
        func report(_ progress: @autoclosure () -> String) {
            guard MonotonicClock.seconds() - lastReport >= 5 else { return }
            lastReport = MonotonicClock.seconds()
            configuration.log?("index \(iid) \(index): CREATING, \(progress()); store: " + checkpointer.summary)
        }
        composites.update(iid) { $0.documentsScanned = 0 }
        // Pass 1. Documents with a larger row id than the largest now were written after the index was recorded
        // (it is CREATING), so their writes keep their entries.
        let entries = try SQLiteIndexBuildEntries()
        let largest = try readers.withConnection { try $0.rows("SELECT max(rid) FROM docs").first?[0].int ?? 0 }
        var position: Int64 = 0
        var scanned: Int64 = 0
        while position < largest {
            guard building(iid) else { return }
            let (found, documents) = try readers.withConnection {
                try Self.scanEntries(index, $0, from: position, window: Self.scanWindow)
            }
            try entries.add(found)
            position += Self.scanWindow
            scanned = composites.recordBuildStep(iid, scanned: documents, done: false)
            report("\(scanned) documents scanned so far")
        }
        configuration.log?(
            "index \(iid) \(index): CREATING, \(scanned) documents scanned into \(entries.count) entries in "
                + String(format: "%.1f s", MonotonicClock.seconds() - started) + ", adding them")
        buildScanned(iid)
        // Pass 2.
        var window = Self.buildWindow
        var written: Int64 = 0
        var steps = 0
        // Entries of the last step that it left to the next one, and whether `entries` has no more.
        var leftover: [IndexBuildEntry] = []
        var exhausted = false
        while building(iid) {
            let limit = Int(window)
            var batch = leftover
            if batch.count < limit && !exhausted {
                let (more, last) = try entries.next(limit - batch.count)
                batch += more
                exhausted = last
            }
            let final = exhausted && batch.count <= limit
            if batch.count > limit {
                leftover = Array(batch[limit...])
                batch.removeLast(batch.count - limit)
            } else {
                leftover = []
            }
            let size = min(limit, SQLiteWriter.maxBatchWrites)
            // The step's work, without its COMMIT: a write queued behind the step waits for both, but the COMMIT
            // costs about what the write's own does (a sync), however few rows the step holds, so steps sized to
            // include it would shrink to nothing on a slow disk and the build would crawl. A write queued while
            // the step works ends it early (after a few entries, so the build goes on under any load of writes).
            let (added, seconds) = try writer.submit(size: size, background: true) {
                [scanned, batch, writer] transaction in
                let began = MonotonicClock.seconds()
                let added = try transaction.addBuiltEntries(
                    iid, index, batch, scanned: scanned, done: final, shouldYield: { writer.writesWaiting })
                return (added, MonotonicClock.seconds() - began)
            }
            leftover = Array(batch[added...]) + leftover
            written += Int64(added)
            steps += 1
            // Steps as long as a write should wait at most, whatever the machine's speed (growing at most twofold
            // per step, so one quick step does not make the next one huge).
            let scaled = Int64(Double(max(added, 1)) * configuration.indexBuildStepSeconds / max(seconds, 0.000_1))
            window = max(Self.buildWindows.lowerBound, min(scaled, Self.buildWindows.upperBound, window * 2))
            if final && leftover.isEmpty {
                scanned = composites.recordBuildStep(iid, scanned: 0, done: true)
                let seconds = String(format: "%.1f", MonotonicClock.seconds() - started)
                configuration.log?(
                    "index \(iid) \(index): READY (\(scanned) documents, \(written) entries, \(steps) steps, \(seconds) s);"
                        + " store: " + checkpointer.summary)
                return
            }
            report("\(written) of \(entries.count) entries written")
        }
    }

    /// The entries of the documents of `index`'s collection group with `rid` in `(from, from + window]`, as
    /// `connection` sees them, and how many documents those are.
    static func scanEntries(
        _ index: CompositeIndex, _ connection: SQLiteConnection, from: Int64, window: Int64
    ) throws -> (entries: [IndexBuildEntry], documents: Int64) {
        let rows = try connection.rows(
            """
            SELECT d.cid, d.id, d.data, d.version, c.path FROM docs d CROSS JOIN collections c ON c.cid = d.cid
            WHERE d.rid > ? AND d.rid <= ? AND c.group_id = ?
            """, [.int(from), .int(from + window), .text(index.collectionGroup)])
        var entries: [IndexBuildEntry] = []
        for row in rows {
            guard let cid = row[0].int, let id = row[1].text, let bytes = row[2].blob, let version = row[3].int,
                let collection = try? CollectionPath(row[4].text ?? ""),
                case .object(let fields) = try JSONValue.parse(bytes, maxDepth: 512)
            else { continue }
            let scope = index.scope == .collection ? cid : 0
            let fingerprint = IndexBuildEntry.fingerprint(bytes)
            for key in CompositeIndexKey.keys(index, fields: fields, id: id, collection: collection) {
                entries.append(
                    IndexBuildEntry(
                        scope: scope, key: key, cid: cid, id: id, version: version, fingerprint: fingerprint))
            }
        }
        return (entries, Int64(rows.count))
    }

    /// Reads `composite_indexes` into `catalog`; returns the ids of the unfinished builds.
    static func loadCompositeIndexes(
        _ connection: SQLiteConnection, into catalog: CompositeIndexCatalog
    ) throws -> [Int64] {
        var unfinished: [Int64] = []
        for row in try connection.rows(
            "SELECT iid, definition, state, scanned, message FROM composite_indexes ORDER BY iid")
        {
            guard let iid = row[0].int, let text = row[1].text,
                let index = try? CompositeIndex(json: JSONValue.parse(Array(text.utf8)))
            else { continue }
            let state = CompositeIndexStatus.State(rawValue: row[2].text ?? "") ?? .error
            catalog.put(
                CompositeIndexStatus(
                    id: iid, index: index, state: state, documentsScanned: row[3].int ?? 0, message: row[4].text))
            if state == .creating { unfinished.append(iid) }
        }
        return unfinished
    }
}

/// A test's callback between the two passes of an index build (`SQLiteDocumentStore.buildScanned`), called with
/// the index's id on the build's thread.
final class IndexBuildHook: Sendable {
    private let action = Mutex<(@Sendable (Int64) -> Void)?>(nil)
    func set(_ action: @escaping @Sendable (Int64) -> Void) { self.action.withLock { $0 = action } }
    func callAsFunction(_ iid: Int64) { action.withLock { $0 }?(iid) }
}

/// A flag set once, read from any thread.
final class StopFlag: Sendable {
    private let value = Atomic(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
