import Foundation
internal import KuraModel

/// The offline cache and write queue (`Kura.Settings.persistence = .file(URL)`), in one SQLite file.
///
/// **Reads** go to the server and fall back to the cache when it cannot be reached (`metadata.isFromCache`); every
/// document the server returns is cached. Queued writes are applied on top (`metadata.hasPendingWrites`).
///
/// **Writes** are stored durably first (one queue entry per `setData`, batch…), then sent one entry at a time, in
/// order. While the server answers, a call returns when its write is acknowledged (or throws the server's refusal);
/// while it cannot be reached, the call returns once the write is queued, and the queue is sent when the server is
/// back. An entry is removed only after the server acknowledged it, so a crash never loses one.
///
/// **Exactly once.** A request whose answer was lost may have been applied, so an entry is always sent again until
/// it is acknowledged, and each entry carries a proof of application that makes a repeat fail instead of applying
/// twice: the commit also *creates* a fresh receipt document (`users/{uid}/_kura_receipts/{random id}` by
/// default, deleted again after the acknowledgement). If an earlier attempt was applied, the receipt exists and the
/// server refuses the whole commit with `ALREADY_EXISTS`, which the queue takes as the acknowledgement. A write
/// that creates a document with a new automatic ID (`addDocument`) is its own receipt. Without a receipt (signed
/// out, or `writeReceipts: nil`) delivery is at least once.
final class OfflineStore: Sendable {
    let database: LocalDatabase
    let auth: Auth
    /// Where receipts go: `{uid}` is replaced by the user's ID; `nil` turns receipts off.
    let receiptCollection: String?
    let state = Locked(State())

    struct State {
        var flusher: Task<Void, Never>?
        /// Another flush was asked for while one ran.
        var flushAgain = false
        /// Callers waiting for their entry (by sequence number).
        var waiters: [Int64: CheckedContinuation<Void, any Error>] = [:]
        /// The last request failed to reach the server.
        var offline = false
        var retry: Task<Void, Never>?
        var failures = 0
        /// Told about local changes (the listener hub), with the paths touched.
        var observer: (@Sendable ([String]) -> Void)?
        var rejectionObservers: [UUID: AsyncStream<RejectedWrite>.Continuation] = [:]
        /// Acknowledged writes by path, oldest first, until listeners have seen the server's version of them. Every
        /// one is kept, not only a path's last: three increments acknowledged one after the other all show until
        /// the stream delivers the version that holds them.
        var unconfirmed: [ByteKey: [Unconfirmed]] = [:]  // by path, with the server's byte identity
        /// Tests only: called when an acknowledged entry has just left the queue, before its caller is released.
        var afterDequeue: (@Sendable () -> Void)?
    }

    /// An acknowledged write whose result the listen stream may not have delivered yet.
    struct Unconfirmed: Sendable {
        var write: Write
        /// The server's version of the document after the write; 1 when the answer was lost (an earlier attempt
        /// was applied), so the write shows until the stream shows the document at all.
        var version: Int64
        /// When it was acknowledged, `ProcessInfo.systemUptime` (monotonic).
        var time: TimeInterval
        /// The queue entry the write came from.
        var sequence: Int64
    }

    /// Acknowledged writes under `covers` that a listener whose server view is `serverView` has not seen yet:
    /// applied on top of that view, they keep a just-acknowledged write from vanishing until the stream catches up.
    /// Writes of the queue entries `queued` are left out: the caller applies them from the queue, and applying a
    /// write twice (an increment) would show a wrong value.
    ///
    /// Read the queue *before* calling this: `acknowledge` records a write here before it leaves the queue, so a
    /// write is always in one of the two reads, never in neither.
    func unconfirmedWrites(
        covering covers: (String) -> Bool, serverView: [RemoteDocument], queued: Set<Int64>
    ) -> [Write] {
        state.withLock { state in
            let now = ProcessInfo.processInfo.systemUptime
            state.unconfirmed = state.unconfirmed.compactMapValues { writes in
                let recent = writes.filter { now - $0.time < 30 }
                return recent.isEmpty ? nil : recent
            }
            return state.unconfirmed.values.flatMap { writes in
                writes.filter { entry in
                    guard covers(entry.write.path), !queued.contains(entry.sequence) else { return false }
                    let seen = serverView.first { $0.path.bytesEqual(entry.write.path) }
                    if case .delete = entry.write.operation { return seen != nil }
                    return (seen?.version ?? 0) < entry.version
                }.map(\.write)
            }
        }
    }

    /// Queued writes the server refused after their caller had returned (see `Kura.rejectedWrites`).
    var rejections: AsyncStream<RejectedWrite> {
        AsyncStream { continuation in
            let id = UUID()
            state.withLock { $0.rejectionObservers[id] = continuation }
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.rejectionObservers.removeValue(forKey: id) }
            }
        }
    }

    /// A queued commit.
    struct Entry: Sendable {
        var sequence: Int64
        var uid: String
        var writes: [Write]
        var receipt: String?
    }

    /// A store in `file`, or in memory when `file` is `nil`.
    init(file: URL?, auth: Auth, receiptCollection: String?) throws {
        if let file {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        database = try LocalDatabase(path: file?.path ?? ":memory:")
        self.auth = auth
        self.receiptCollection = receiptCollection
        try database.execute(
            """
            CREATE TABLE IF NOT EXISTS documents(path TEXT PRIMARY KEY, parent TEXT NOT NULL,
                collection_id TEXT NOT NULL, json TEXT)
            """)
        try database.execute("CREATE INDEX IF NOT EXISTS documents_parent ON documents(parent)")
        try database.execute("CREATE INDEX IF NOT EXISTS documents_group ON documents(collection_id)")
        try database.execute(
            """
            CREATE TABLE IF NOT EXISTS pending_writes(sequence INTEGER PRIMARY KEY AUTOINCREMENT, uid TEXT NOT NULL,
                writes TEXT NOT NULL, receipt TEXT, attempts INTEGER NOT NULL DEFAULT 0, queued_at TEXT NOT NULL)
            """)
        try database.execute("CREATE TABLE IF NOT EXISTS stale_receipts(path TEXT PRIMARY KEY, uid TEXT NOT NULL)")
        try database.execute("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        // Writes queued by an earlier run go out as soon as possible.
        flush()
    }

    func setObserver(_ observer: @escaping @Sendable ([String]) -> Void) {
        state.withLock { $0.observer = observer }
    }

    var uid: String { auth.sessionUID ?? "" }

    // MARK: The cache

    /// The cached document: `.some(nil)` when it is known not to exist, `nil` when nothing is known.
    func cached(_ path: String) throws -> RemoteDocument?? {
        try checkOwner()
        guard let row = try database.query("SELECT json FROM documents WHERE path = ?", [.text(path)]).first else {
            return nil
        }
        guard let json = row[0].text else { return .some(nil) }
        return .some(try RemoteDocument(json: try JSONText.decode(Data(json.utf8))))
    }

    /// Every cached, existing document in the query's collection (or collection group).
    func cachedDocuments(for query: Query) throws -> [RemoteDocument] {
        try checkOwner()
        let rows: [[LocalDatabase.Value]]
        switch query.source {
        case .collection(let segments):
            rows = try database.query(
                "SELECT json FROM documents WHERE parent = ? AND json IS NOT NULL",
                [.text(segments.joined(separator: "/"))])
        case .collectionGroup(let id):
            rows = try database.query(
                "SELECT json FROM documents WHERE collection_id = ? AND json IS NOT NULL", [.text(id)])
        }
        return try rows.compactMap { row in
            try row[0].text.map { try RemoteDocument(json: try JSONText.decode(Data($0.utf8))) }
        }
    }

    /// Records what the server said about `path` (`nil`: it does not exist).
    func store(_ path: String, _ document: RemoteDocument?) throws {
        try database.transaction { try storeLocked(path, document) }
    }

    func store(_ documents: [RemoteDocument]) throws {
        try database.transaction { for document in documents { try storeLocked(document.path, document) } }
    }

    /// Forgets `path` (its state is unknown now).
    func forget(_ path: String) throws {
        try database.execute("DELETE FROM documents WHERE path = ?", [.text(path)])
    }

    func storeLocked(_ path: String, _ document: RemoteDocument?) throws {
        try checkOwnerLocked()
        let segments = ResourcePath.split(path)
        let json = try document.map { String(decoding: try JSONText.encode($0.json), as: UTF8.self) }
        try database.run(
            "INSERT OR REPLACE INTO documents(path, parent, collection_id, json) VALUES (?, ?, ?, ?)",
            [
                .text(path), .text(segments.dropLast().joined(separator: "/")), .text(segments.dropLast().last ?? ""),
                json.map(LocalDatabase.Value.text) ?? .null,
            ])
    }

    /// The cache belongs to one account: when another signs in, what the previous one read is dropped.
    func checkOwner() throws {
        try database.transaction { try checkOwnerLocked() }
    }

    /// `checkOwner` inside a transaction.
    func checkOwnerLocked() throws {
        let owner = try database.run("SELECT value FROM meta WHERE key = 'uid'", []).first?[0].text
        guard owner != uid else { return }
        try database.run("DELETE FROM documents", [])
        try database.run("INSERT OR REPLACE INTO meta(key, value) VALUES ('uid', ?)", [.text(uid)])
    }
}
