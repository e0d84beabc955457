import KuraCore

/// The acknowledgements a publishing node waits for (`PostgresClusterChannel.publishAndWait`): each event it waits
/// on has an id; the listener thread records which nodes acknowledged it (`kura_cluster_ack`), and the waiting
/// thread wakes when the last awaited node did, or at its deadline. Thread-safe.
final class ClusterAcknowledgements: @unchecked Sendable {
    // `@unchecked`: `received` is read and written with `condition`'s mutex held.
    private let condition = MonotonicCondition()
    /// Event id → the nodes that acknowledged it so far; only ids someone waits for (guarded by `condition`).
    private var received: [String: Set<String>] = [:]

    /// Starts collecting acknowledgements of `id`; call before the event is sent, so that none is missed.
    func expect(_ id: String) { condition.withLock { received[id] = [] } }

    /// Stops collecting for `id` (after a failed send).
    func forget(_ id: String) { _ = condition.withLock { received.removeValue(forKey: id) } }

    /// Records that `node` acknowledged `id`; ignored unless someone waits for `id`.
    func record(_ id: String, from node: String) {
        condition.withLock {
            guard received[id] != nil else { return }
            received[id]?.insert(node)
            condition.broadcast()
        }
    }

    /// Waits until every node of `nodes` acknowledged `id`, or until `deadline` (`MonotonicClock.nanoseconds()`);
    /// stops collecting and returns the nodes that did not acknowledge, in `nodes`' order.
    func wait(for id: String, from nodes: [String], untilNanoseconds deadline: UInt64) -> [String] {
        condition.withLock {
            defer { received.removeValue(forKey: id) }
            while true {
                let missing = nodes.filter { !(received[id]?.contains($0) ?? false) }
                if missing.isEmpty || MonotonicClock.nanoseconds() >= deadline { return missing }
                condition.wait(untilNanoseconds: deadline)
            }
        }
    }

    /// The payload of an acknowledgement of `id` by `node`: the id, a space, the node's name (ids never hold one).
    static func payload(id: String, node: String) -> String { "\(id) \(node)" }

    /// Decodes `payload(id:node:)`.
    static func decode(_ payload: String) -> (id: String, node: String)? {
        guard let space = payload.firstIndex(of: " ") else { return nil }
        let id = String(payload[..<space])
        let node = String(payload[payload.index(after: space)...])
        return id.isEmpty || node.isEmpty ? nil : (id, node)
    }
}
