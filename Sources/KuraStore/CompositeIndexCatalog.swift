import Foundation
import KuraCore
import KuraModel

/// The composite indexes of one store, in memory: read by the planner (READY ones), the writer (every index that
/// is CREATING or READY is kept by writes) and the admin API. Changed only by the writer thread (inside the
/// transaction that changes `composite_indexes`) and, for READY, after the build's last transaction is durable.
package final class CompositeIndexCatalog: @unchecked Sendable {
    private let lock = NSLock()
    /// An empty catalog.
    package init() {}

    private var records: [Int64: CompositeIndexStatus] = [:]
    /// Collection ID → indexes that writes keep (CREATING or READY), for the writer's per-write lookup.
    private var maintained: [String: [(id: Int64, index: CompositeIndex)]] = [:]

    /// Every index, by id.
    package var all: [CompositeIndexStatus] {
        lock.withLock { records.values.sorted { $0.id < $1.id } }
    }

    /// The indexes writes to collections with `collectionID` must keep.
    package func maintained(for collectionID: String) -> [(id: Int64, index: CompositeIndex)] {
        lock.withLock { maintained[collectionID] ?? [] }
    }

    /// READY indexes over `collectionID`, for the planner.
    package func ready(for collectionID: String) -> [(id: Int64, index: CompositeIndex)] {
        lock.withLock {
            (maintained[collectionID] ?? []).filter { records[$0.id]?.state == .ready }
        }
    }

    /// The status of the index with this definition, if there is one.
    package func status(of index: CompositeIndex) -> CompositeIndexStatus? {
        lock.withLock { records.values.first { $0.index == index } }
    }

    package func status(id: Int64) -> CompositeIndexStatus? { lock.withLock { records[id] } }

    /// Adds or replaces a record.
    package func put(_ status: CompositeIndexStatus) {
        lock.withLock {
            records[status.id] = status
            rebuild()
        }
    }

    /// Updates a record in place (no-op when it was dropped meanwhile).
    package func update(_ id: Int64, _ change: (inout CompositeIndexStatus) -> Void) {
        lock.withLock {
            guard var status = records[id] else { return }
            change(&status)
            records[id] = status
            rebuild()
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
        lock.withLock {
            records[id] = nil
            rebuild()
        }
    }

    private func rebuild() {
        var grouped: [String: [(id: Int64, index: CompositeIndex)]] = [:]
        for status in records.values.sorted(by: { $0.id < $1.id }) where status.state != .error {
            grouped[status.index.collectionGroup, default: []].append((status.id, status.index))
        }
        maintained = grouped
    }
}
