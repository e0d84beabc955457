import Foundation
internal import KuraModel

/// A connection to one Kura server: accounts (`auth`), documents (`collection(_:)`, `document(_:)`), batches,
/// transactions and realtime listeners. Make one per server and share it; it is `Sendable`.
///
/// ```swift
/// let kura = Kura(url: URL(string: "http://127.0.0.1:8090")!)
/// try await kura.auth.signIn(withEmail: "me@example.com", password: "secret1")
/// let todos = kura.collection("users").document(kura.auth.currentUser!.uid).collection("todos")
/// try await todos.addDocument(data: ["title": "milk", "done": false])
/// ```
public final class Kura: Sendable {
    /// The server's base URL.
    public let url: URL
    public let settings: Settings
    /// Accounts: sign-up, sign-in, the current user.
    public let auth: Auth
    let transport: Transport
    /// The offline cache and write queue, with `Settings.persistence` set.
    let offline: OfflineStore?
    /// Why the offline cache file could not be opened (the cache then lasts only as long as this instance).
    public let persistenceError: KuraError?
    /// Every realtime listener, on one shared stream.
    let listeners: ListenerHub

    /// A client for the server at `url` (e.g. `http://127.0.0.1:8090`). Nothing is sent until the first call.
    public init(url: URL, settings: Settings = Settings()) {
        self.url = url
        self.settings = settings
        transport = Transport(baseURL: url, timeout: settings.requestTimeout)
        auth = Auth(
            transport: transport, storage: settings.session.storage(for: url), callbackQueue: settings.dispatchQueue)
        var persistenceError: KuraError?
        switch settings.persistence {
        case .none: offline = nil
        case .file(let file):
            do {
                offline = try OfflineStore(file: file, auth: auth, receiptCollection: settings.writeReceipts)
            } catch {
                // Still usable: the cache lives in memory for this run, and the failure is reported.
                persistenceError = error as? KuraError ?? KuraError(.internal, "\(error)")
                offline = try? OfflineStore(file: nil, auth: auth, receiptCollection: settings.writeReceipts)
            }
        }
        self.persistenceError = persistenceError
        listeners = ListenerHub(auth: auth, transport: transport, offline: offline)
    }

    /// The collection at `path` (`"users"`, `"users/u1/todos"`).
    public func collection(_ path: String) -> CollectionReference {
        CollectionReference(kura: self, segments: ResourcePath.split(path))
    }

    /// The document at `path` (`"users/u1"`).
    public func document(_ path: String) -> DocumentReference {
        DocumentReference(kura: self, segments: ResourcePath.split(path))
    }

    /// Every collection named `collectionID`, wherever it is (`collectionGroup("todos")`).
    public func collectionGroup(_ collectionID: String) -> Query {
        Query(kura: self, source: .collectionGroup(collectionID))
    }

    /// With persistence: writes waiting to be acknowledged by the server (0 without persistence).
    public var pendingWriteCount: Int { offline?.pendingCount ?? 0 }

    /// With persistence: writes queued while offline that the server refused once it was reachable again. (A
    /// write the server refuses while its call is still waiting is thrown by that call instead.)
    public var rejectedWrites: AsyncStream<RejectedWrite> { offline?.rejections ?? AsyncStream { $0.finish() } }

    /// With persistence: returns once every write queued so far has been acknowledged (or refused) by the server.
    /// Waits while the server cannot be reached.
    public func waitForPendingWrites() async throws {
        guard let offline else { return }
        offline.flush()
        while offline.pendingCount > 0 {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
    }

    /// Sends `request` as the signed-in user (anonymously when signed out).
    func call(_ request: APIRequest) async throws -> APIResponse { try await auth.call(request) }
}

extension Kura {
    /// How a `Kura` client behaves.
    public struct Settings: Sendable {
        /// Where documents are cached for offline use.
        public var persistence: Persistence
        /// Where the signed-in session is kept between launches.
        public var session: SessionPersistence
        /// How long a request may take before it fails with `.unavailable`.
        public var requestTimeout: TimeInterval
        /// With persistence: the collection where queued writes leave a receipt that makes a repeated request
        /// harmless (`{uid}` is the signed-in user's ID; the security rules must let users create and delete
        /// documents there). `nil`: no receipts, and a write whose acknowledgement was lost may apply twice.
        public var writeReceipts: String?

        /// Where listener callbacks (`addSnapshotListener`, `observe`) and completion handlers run, as Firestore's
        /// `dispatchQueue` setting: the main queue unless you say otherwise, so they may update the UI. Give a
        /// serial queue (callbacks of one listener run in order on it). `async` calls and `snapshots()` streams
        /// are not affected: they resume wherever the caller's task runs.
        public var dispatchQueue: DispatchQueue

        public init(
            persistence: Persistence = .none, session: SessionPersistence = .automatic,
            requestTimeout: TimeInterval = 30, writeReceipts: String? = "users/{uid}/_kura_receipts",
            dispatchQueue: DispatchQueue = .main
        ) {
            self.persistence = persistence
            self.session = session
            self.requestTimeout = requestTimeout
            self.writeReceipts = writeReceipts
            self.dispatchQueue = dispatchQueue
        }
    }

    /// The offline document cache.
    public enum Persistence: Sendable {
        /// No cache: every read asks the server; writes fail while it is unreachable.
        case none
        /// An SQLite cache and write queue in this file: reads fall back to it, writes made offline wait in it.
        case file(URL)
    }
}
