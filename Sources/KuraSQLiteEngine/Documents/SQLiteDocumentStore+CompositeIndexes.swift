import Foundation
import KuraCore
import KuraModel
import KuraSQLite
import KuraStore

/// Declaring, building and dropping composite indexes.
///
/// A new index is recorded as CREATING in one writer transaction; from then on every write keeps its entries.
/// The existing documents are then indexed in the background, a window of row ids per writer
/// transaction, so writes queue behind at most one such step (they are never blocked for the whole build). The
/// step that passes the last document marks the index READY in the database, and once that step is durable the
/// planner starts using it. A restart resumes an unfinished build where it stopped.
extension SQLiteDocumentStore {
    /// Document row ids of the first build step (one writer transaction); later steps are sized so that each
    /// takes about `configuration.indexBuildStepSeconds` (how long a write may wait behind one step), within
    /// `buildWindows`.
    static let buildWindow: Int64 = 1000
    /// Smallest and largest build steps.
    static let buildWindows: ClosedRange<Int64> = 100...20_000
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
        startBuild(iid, from: 0)
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

    /// Builds index `iid` from document row id `from` on, in the background.
    func startBuild(_ iid: Int64, from: Int64) {
        indexJobs.async { [self] in
            guard let status = composites.status(id: iid) else { return }
            let started = MonotonicClock.seconds()
            var lastReport = started
            var position = from
            var window = Self.buildWindow
            var steps = 0
            while !indexBuildsStopped.isSet, composites.status(id: iid) != nil {
                do {
                    let size = Int(min(window, Int64(SQLiteWriter.maxBatchWrites)))
                    // The step's work, without its COMMIT: a write queued behind the step waits for both, but the
                    // COMMIT costs about what the write's own does (a sync), however few rows the step holds, so
                    // steps sized to include it would shrink to nothing on a slow disk and the build would crawl.
                    let (step, seconds) = try writer.submit(size: size, background: true) {
                        [window, position] transaction in
                        let began = MonotonicClock.seconds()
                        let step = try transaction.buildCompositeIndex(
                            iid, status.index, from: position, window: window)
                        return (step, MonotonicClock.seconds() - began)
                    }
                    position = step.position
                    steps += 1
                    // Steps as long as a write should wait at most, whatever the machine's speed (growing at most
                    // twofold per step, so one quick step over a sparse range does not make the next one huge).
                    let scaled = Int64(
                        Double(window) * configuration.indexBuildStepSeconds / max(seconds, 0.000_1))
                    window = max(Self.buildWindows.lowerBound, min(scaled, Self.buildWindows.upperBound, window * 2))
                    let scanned = composites.recordBuildStep(iid, scanned: step.scanned, done: step.done)
                    if step.done {
                        let seconds = String(format: "%.1f", MonotonicClock.seconds() - started)
                        configuration.log?(
                            "index \(iid) \(status.index): READY (\(scanned) documents, \(steps) steps, \(seconds) s); store: "
                                + checkpointer.summary)
                        return
                    }
                    if MonotonicClock.seconds() - lastReport >= 5 {
                        lastReport = MonotonicClock.seconds()
                        configuration.log?(
                            "index \(iid) \(status.index): CREATING, \(scanned) documents so far; store: "
                                + checkpointer.summary)
                    }
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
                    return
                }
            }
        }
    }

    /// Reads `composite_indexes` into `catalog`; returns the unfinished builds (id, position).
    static func loadCompositeIndexes(
        _ connection: SQLiteConnection, into catalog: CompositeIndexCatalog
    ) throws -> [(Int64, Int64)] {
        var unfinished: [(Int64, Int64)] = []
        for row in try connection.rows(
            "SELECT iid, definition, state, scanned, build_rid, message FROM composite_indexes ORDER BY iid")
        {
            guard let iid = row[0].int, let text = row[1].text,
                let index = try? CompositeIndex(json: JSONValue.parse(Array(text.utf8)))
            else { continue }
            let state = CompositeIndexStatus.State(rawValue: row[2].text ?? "") ?? .error
            catalog.put(
                CompositeIndexStatus(
                    id: iid, index: index, state: state, documentsScanned: row[3].int ?? 0, message: row[5].text))
            if state == .creating { unfinished.append((iid, row[4].int ?? 0)) }
        }
        return unfinished
    }
}

/// A flag set once, read from any thread.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
