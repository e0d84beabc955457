import Foundation
internal import KuraModel

/// What listeners see: the server's events applied to each target's view, with queued offline writes on top, and
/// the changes between one delivery and the next.
extension ListenerHub {

    func receiveSnapshot(_ payload: KuraValue) {
        guard let id = payload["target"]?.stringValue else { return }
        let documents = (payload["documents"]?.arrayValue ?? []).compactMap { try? RemoteDocument(json: $0) }
        let local = state.withLock { state -> LocalTarget? in
            state.statistics.snapshotEvents += 1
            guard state.targets[id] != nil else { return nil }
            state.targets[id]?.serverView = documents
            state.targets[id]?.hasFirstEvent = true
            state.targets[id]?.live = true
            state.targets[id]?.inSync = true
            state.targets[id]?.serverRevision += 1
            return state.targets[id]?.local
        }
        guard let local else { return }
        if let offline {
            if case .document(let path) = local {
                try? offline.store(path, documents.first)
            } else {
                try? offline.store(documents)
            }
        }
        publish(id, serverChanges: nil)
    }

    func receiveChanges(_ payload: KuraValue) {
        guard let id = payload["target"]?.stringValue else { return }
        let items = payload["changes"]?.arrayValue ?? []
        let update = state.withLock { state -> (LocalTarget, (Int, [Change]))? in
            state.statistics.changesEvents += 1
            guard let target = state.targets[id] else { return nil }
            var view = target.serverView
            var changes: [Change] = []
            for item in items {
                guard let document = item["document"].flatMap({ try? RemoteDocument(json: $0) }),
                    let kind = item["type"]?.stringValue.flatMap(DocumentChange.Kind.init(rawValue:))
                else { continue }
                let old = view.firstIndex { $0.path.bytesEqual(document.path) }
                if let old { view.remove(at: old) }
                var new: Int?
                if kind != .removed {
                    let index = min(max(item["newIndex"]?.intValue ?? view.count, 0), view.count)
                    view.insert(document, at: index)
                    new = index
                }
                changes.append(Change(kind: kind, document: document, oldIndex: old, newIndex: new))
            }
            state.targets[id]?.serverView = view
            state.targets[id]?.hasFirstEvent = true
            state.targets[id]?.live = true
            state.targets[id]?.inSync = true
            state.targets[id]?.serverRevision += 1
            return (target.local, (target.serverRevision + 1, changes))
        }
        guard let (local, (revision, changes)) = update else { return }
        if let offline {
            for change in changes {
                switch (change.kind, local) {
                case (.removed, .document(let path)): try? offline.store(path, nil)
                // Left the query's results: deleted, or no longer matching; the cache cannot tell which.
                case (.removed, .query): try? offline.forget(change.document.path)
                default: try? offline.store(change.document.path, change.document)
                }
            }
        }
        publish(id, serverChanges: (revision, changes))
    }

    /// Queued writes changed (`paths`): listeners that cover them show their local state.
    func localChange(_ paths: [String]) {
        let ids = state.withLock { state in
            state.targets.filter { _, target in paths.contains { target.local.covers($0) } }.map(\.key)
        }
        for id in ids { publish(id, serverChanges: nil) }
    }

    /// The stream is down: every listener's view is from the cache until its target hears from the server on a
    /// new stream (`isFromCache`, a metadata-only change), and listeners that never heard from the server show
    /// what the cache has.
    func showCache() {
        let hasCache = offline != nil
        let ids = state.withLock { state -> [String] in
            var ids: [String] = []
            for (id, target) in state.targets {
                if target.hasFirstEvent {
                    guard target.inSync else { continue }
                    state.targets[id]?.inSync = false
                    ids.append(id)
                } else if hasCache {
                    ids.append(id)
                }
            }
            return ids.sorted()
        }
        for id in ids { publish(id, serverChanges: nil) }
    }

    /// Computes what target `id` shows now and delivers it if it changed: the server's view, with queued writes
    /// applied on top (persistence), or the cache's answer while the server has said nothing yet.
    /// `serverChanges` are the changes of server event number `revision`.
    func publish(_ id: String, serverChanges: (revision: Int, changes: [Change])?) {
        delivery.lock()
        defer { delivery.unlock() }
        guard let target = state.current.targets[id] else { return }
        var documents = target.serverView
        var metadata = SnapshotMetadata(isFromCache: !target.hasFirstEvent || !target.inSync)
        var pendingPaths: Set<ByteKey> = []
        if let offline {
            // Acknowledged writes the stream has not shown yet (the cache has them already), then the queue. The
            // queue is read first: see `OfflineStore.unconfirmedWrites`.
            let queue = (try? offline.entries()) ?? []
            let unconfirmed =
                target.hasFirstEvent
                ? offline.unconfirmedWrites(
                    covering: target.local.covers, serverView: target.serverView, queued: Set(queue.map(\.sequence)))
                : []
            let pending = unconfirmed + queue.flatMap(\.writes).filter { target.local.covers($0.path) }
            if !target.hasFirstEvent || !pending.isEmpty {
                documents = (try? localView(target, offline: offline, pending: pending)) ?? documents
                let touched = Set(pending.map { ByteKey($0.path) })
                pendingPaths = Set(documents.map { ByteKey($0.path) }.filter(touched.contains))
                metadata.hasPendingWrites = !pending.isEmpty
            }
        } else if !target.hasFirstEvent {
            return
        }
        let isServer = !metadata.isFromCache && !metadata.hasPendingWrites
        var changes: [Change]
        if !target.delivered {
            changes = Self.allAdded(documents)
        } else if let serverChanges, isServer, target.viewIsServer, serverChanges.revision == target.serverRevision,
            target.viewRevision == target.serverRevision - 1
        {
            // The server's changes describe exactly the step from what was delivered to its new view.
            changes = serverChanges.changes
        } else {
            changes = Self.diff(target.view, documents)
        }
        let metadataChanged = metadata != target.metadata || pendingPaths != target.pendingPaths
        if target.delivered && changes.isEmpty && !metadataChanged && documents == target.view { return }
        state.withLock { state in
            state.targets[id]?.view = documents
            state.targets[id]?.metadata = metadata
            state.targets[id]?.pendingPaths = pendingPaths
            state.targets[id]?.delivered = true
            state.targets[id]?.viewIsServer = isServer
            state.targets[id]?.viewRevision = target.serverRevision
        }
        // Firestore's rule: a snapshot is raised for document changes; one that only changes `isFromCache` or
        // `hasPendingWrites` is raised only for listeners that asked for metadata changes, for which documents
        // whose own `hasPendingWrites` flipped count as modified.
        if target.delivered && target.includeMetadataChanges {
            let changed = Set(changes.map { ByteKey($0.document.path) })
            for (index, document) in documents.enumerated() {
                let key = ByteKey(document.path)
                guard !changed.contains(key), pendingPaths.contains(key) != target.pendingPaths.contains(key),
                    target.view.contains(where: { $0.path.bytesEqual(document.path) })
                else { continue }
                changes.append(Change(kind: .modified, document: document, oldIndex: index, newIndex: index))
            }
        }
        guard !target.delivered || !changes.isEmpty || (metadataChanged && target.includeMetadataChanges) else {
            return
        }
        target.deliver(Update(documents: documents, changes: changes, metadata: metadata, pendingPaths: pendingPaths))
    }

    /// The target's documents from the server's view (or the cache, before the server spoke) with `pending`
    /// writes applied.
    func localView(_ target: Target, offline: OfflineStore, pending: [Write]) throws -> [RemoteDocument] {
        switch target.local {
        case .query(let query):
            let base = target.hasFirstEvent ? target.serverView : try offline.cachedDocuments(for: query)
            return try offline.localResults(query, base: base, pending: pending)
        case .document(let path):
            let base: RemoteDocument?? =
                target.hasFirstEvent ? .some(target.serverView.first) : try offline.cached(path)
            let (document, _) = offline.overlay(path, on: base, pending: pending)
            return (document ?? nil).map { [$0] } ?? []
        }
    }

    func fail(_ id: String, _ error: any Error) {
        let target = state.withLock { $0.targets[id] }
        target?.fail(error)
        remove(id)
    }

    func failAll(_ error: any Error) {
        for id in state.current.targets.keys { fail(id, error) }
    }

    static func allAdded(_ documents: [RemoteDocument]) -> [Change] {
        documents.enumerated().map { Change(kind: .added, document: $0.element, oldIndex: nil, newIndex: $0.offset) }
    }

    /// The changes that turn `old` into `new`, each index valid after the previous changes are applied (as
    /// Firestore's `DocumentChange` indices are). A document that only moved because others did may be reported
    /// as modified.
    static func diff(_ old: [RemoteDocument], _ new: [RemoteDocument]) -> [Change] {
        let newPaths = Set(new.map(\.path))
        var current = old
        var changes: [Change] = []
        for document in old where !newPaths.contains(document.path) {
            let index = current.firstIndex { $0.path.bytesEqual(document.path) }!
            current.remove(at: index)
            changes.append(Change(kind: .removed, document: document, oldIndex: index, newIndex: nil))
        }
        for (index, document) in new.enumerated() {
            if index < current.count, current[index].path.bytesEqual(document.path) {
                if current[index].data != document.data {
                    current[index] = document
                    changes.append(Change(kind: .modified, document: document, oldIndex: index, newIndex: index))
                }
            } else if let old = current.firstIndex(where: { $0.path.bytesEqual(document.path) }) {
                current.remove(at: old)
                current.insert(document, at: index)
                changes.append(Change(kind: .modified, document: document, oldIndex: old, newIndex: index))
            } else {
                current.insert(document, at: index)
                changes.append(Change(kind: .added, document: document, oldIndex: nil, newIndex: index))
            }
        }
        return changes
    }
}
