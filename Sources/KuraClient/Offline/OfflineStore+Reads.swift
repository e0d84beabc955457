import Foundation
internal import KuraModel

/// Reads with persistence: the server first, the cache when it cannot be reached, queued writes on top.
extension OfflineStore {

    func getDocument(_ reference: DocumentReference, source: Source) async throws -> DocumentSnapshot {
        let path = reference.path
        if source != .cache {
            do {
                let remote = try await reference.fetch()
                serverReached()
                try store(path, remote)
                let (document, pending) = overlay(path, on: .some(remote), pending: try pendingWrites())
                return DocumentSnapshot(
                    reference: reference, document: document ?? nil,
                    metadata: .init(isFromCache: false, hasPendingWrites: pending))
            } catch let error as KuraError where error.isNetworkFailure && source == .default {
                goOffline()
            }
        }
        let (document, pending) = overlay(path, on: try cached(path), pending: try pendingWrites())
        guard let document else {
            throw KuraError(.unavailable, "\(path) is not in the offline cache and the server cannot be reached")
        }
        return DocumentSnapshot(
            reference: reference, document: document, metadata: .init(isFromCache: true, hasPendingWrites: pending))
    }

    func getDocuments(_ query: Query, source: Source) async throws -> QuerySnapshot {
        if source != .cache {
            do {
                let documents = try await query.fetchAll()
                serverReached()
                try store(documents)
                if query.isWholeCollection { try replaceCollection(query, with: documents) }
                let pending = try pendingWrites().filter { LocalEvaluation.inSource(query, $0.path) }
                guard !pending.isEmpty else { return query.snapshot(documents) }
                return query.snapshot(
                    try localResults(query, base: documents, pending: pending),
                    metadata: .init(isFromCache: false, hasPendingWrites: true),
                    pendingPaths: Set(pending.map { ByteKey($0.path) }))
            } catch let error as KuraError where error.isNetworkFailure && source == .default {
                goOffline()
            }
        }
        let pending = try pendingWrites().filter { LocalEvaluation.inSource(query, $0.path) }
        return query.snapshot(
            try localResults(query, base: try cachedDocuments(for: query), pending: pending),
            metadata: .init(isFromCache: true, hasPendingWrites: !pending.isEmpty),
            pendingPaths: Set(pending.map { ByteKey($0.path) }))
    }

    /// The query over `base` with `pending` writes applied (documents they touch are looked up in the cache).
    func localResults(_ query: Query, base: [RemoteDocument], pending: [Write]) throws -> [RemoteDocument] {
        // Path → state: a document, `.some(nil)` for deleted (so a later write does not revive the cached one).
        // Keyed by bytes, as the server names documents: café (NFC) and café (NFD) are two.
        var documents: [ByteKey: RemoteDocument?] = [:]
        for document in base { documents[ByteKey(document.path)] = .some(document) }
        for write in pending {
            let known: RemoteDocument?? = try documents[ByteKey(write.path)] ?? cached(write.path)
            let (result, _) = overlay(write.path, on: known, pending: [write])
            if let result { documents[ByteKey(write.path)] = result }
        }
        return try LocalEvaluation.run(query, over: documents.values.compactMap { $0 })
    }

    /// After a whole collection was read: cached documents of it that the server no longer has are gone.
    func replaceCollection(_ query: Query, with documents: [RemoteDocument]) throws {
        guard case .collection(let segments) = query.source else { return }
        let keep = Set(documents.map { ByteKey($0.path) })
        try database.transaction {
            let rows = try database.run(
                "SELECT path FROM documents WHERE parent = ? AND json IS NOT NULL",
                [.text(segments.joined(separator: "/"))])
            for path in rows.compactMap({ $0[0].text }) where !keep.contains(ByteKey(path)) {
                try storeLocked(path, nil)
            }
        }
    }
}

/// A write queued offline that the server refused when it was finally sent (it is dropped from the queue and
/// from local reads).
public struct RejectedWrite: Sendable {
    /// The documents it would have written (one entry: a `setData`, or every write of a batch).
    public let paths: [String]
    /// The server's reason: `.permissionDenied`, `.notFound` for an update of a missing document…
    public let error: KuraError
}

extension Query {
    /// A query for every document of a collection: its results say which documents exist.
    var isWholeCollection: Bool {
        if case .collection = source { return filters.isEmpty && limit == nil && start == nil && end == nil }
        return false
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
