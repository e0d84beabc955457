import KuraCore
import KuraModel
import Synchronization

/// The composite indexes of one store, in memory: read by the planner (READY ones), the writer (every index that
/// is CREATING or READY is kept by writes) and the admin API. Changed only by the writer thread (inside the
/// transaction that changes `composite_indexes`) and, for READY, after the build's last transaction is durable.
package final class CompositeIndexCatalog: Sendable {
    private let state = Mutex(State())

    private struct State {
        var records: [Int64: CompositeIndexStatus] = [:]
        /// Collection ID → indexes that writes keep (CREATING or READY), for the writer's per-write lookup.
        var maintained: [String: [(id: Int64, index: CompositeIndex)]] = [:]

        mutating func rebuild() {
            var grouped: [String: [(id: Int64, index: CompositeIndex)]] = [:]
            for status in records.values.sorted(by: { $0.id < $1.id }) where status.state != .error {
                grouped[status.index.collectionGroup, default: []].append((status.id, status.index))
            }
            maintained = grouped
        }
    }

    /// An empty catalog.
    package init() {}

    /// Every index, by id.
    package var all: [CompositeIndexStatus] {
        state.withLock { $0.records.values.sorted { $0.id < $1.id } }
    }

    /// The indexes writes to collections with `collectionID` must keep.
    package func maintained(for collectionID: String) -> [(id: Int64, index: CompositeIndex)] {
        state.withLock { $0.maintained[collectionID] ?? [] }
    }

    /// READY indexes over `collectionID`, for the planner.
    package func ready(for collectionID: String) -> [(id: Int64, index: CompositeIndex)] {
        state.withLock { state in
            (state.maintained[collectionID] ?? []).filter { state.records[$0.id]?.state == .ready }
        }
    }

    /// The status of the index with this definition, if there is one.
    package func status(of index: CompositeIndex) -> CompositeIndexStatus? {
        state.withLock { $0.records.values.first { $0.index == index } }
    }

    package func status(id: Int64) -> CompositeIndexStatus? { state.withLock { $0.records[id] } }

    /// Adds or replaces a record.
    package func put(_ status: CompositeIndexStatus) {
        state.withLock {
            $0.records[status.id] = status
            $0.rebuild()
        }
    }

    /// Updates a record in place (no-op when it was dropped meanwhile).
    package func update(_ id: Int64, _ change: (inout CompositeIndexStatus) -> Void) {
        state.withLock {
            guard var status = $0.records[id] else { return }
            change(&status)
            $0.records[id] = status
            $0.rebuild()
        }
    }

    /// Counts one build step's documents into index `id`'s progress, marking it READY when the build is `done`;
    /// returns the documents scanned so far (0 when the index was dropped meanwhile).
    package func recordBuildStep(_ id: Int64, scanned: Int64, done: Bool) -> Int64 {
        update(id) {
            $0.documentsScanned += scanned
            if done { $0.state = .ready }
        }
        return status(id: id)?.documentsScanned ?? 0
    }

    package func remove(_ id: Int64) {
        state.withLock {
            $0.records[id] = nil
            $0.rebuild()
        }
    }
}
