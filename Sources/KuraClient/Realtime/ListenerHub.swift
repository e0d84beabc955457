import Foundation
internal import KuraModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// All realtime listeners of one `Kura` client, multiplexed on one Server-Sent Events stream (docs/realtime.md):
/// `GET /api/listen` opens it, `POST /api/listen/{connectionId}` adds and removes targets. When the stream drops
/// (network, server restart, `overflow`, an expired token), the hub reconnects with backoff and re-adds every
/// target with `resumeAfter` = the last event id, so listeners continue without missing or repeating a change.
/// The stream is open only while at least one listener is.
final class ListenerHub: Sendable {
    let auth: Auth
    let transport: Transport
    let offline: OfflineStore?
    let state = Locked(State())
    /// Serializes deliveries, so a listener sees its snapshots in the order they were computed.
    let delivery = NSLock()

    /// What a listener receives: its documents in order and what changed since its previous update.
    struct Update: Sendable {
        var documents: [RemoteDocument]
        var changes: [Change]
        var metadata: SnapshotMetadata
        /// The documents with a pending write (their own `metadata.hasPendingWrites`).
        var pendingPaths: Set<ByteKey> = []
    }

    struct Change: Sendable {
        var kind: DocumentChange.Kind
        var document: RemoteDocument
        var oldIndex: Int?
        var newIndex: Int?
    }

    /// A listener's registration.
    struct Target: Sendable {
        /// `{"query": …}` or `{"doc": path}`, as `POST /api/listen/{id}` takes it.
        var spec: DocumentData
        /// What it watches, for answering from the offline cache.
        var local: LocalTarget
        var deliver: @Sendable (Update) -> Void
        var fail: @Sendable (any Error) -> Void
        /// Whether the listener also gets snapshots in which only the metadata changed (Firestore's
        /// `includeMetadataChanges`).
        var includeMetadataChanges = false
        /// The documents as the server last described them.
        var serverView: [RemoteDocument] = []
        /// The documents as last delivered (the server's, or with queued writes applied).
        var view: [RemoteDocument] = []
        var metadata = SnapshotMetadata()
        /// The documents of `view` with a pending write.
        var pendingPaths: Set<ByteKey> = []
        /// Whether anything was delivered yet.
        var delivered = false
        /// Whether the last delivery was exactly the server's view (then the server's own changes describe the
        /// next step).
        var viewIsServer = true
        /// Counts server events for the target, and says which one the last delivery reflected.
        var serverRevision = 0
        var viewRevision = 0
        /// Whether the server has sent the target's first event on some stream.
        var hasFirstEvent = false
        /// Whether it has had an event on the current stream: then it is at the stream's last event id.
        var live = false
        /// Whether its view is the server's current one: set by its events, cleared when the stream drops (its
        /// snapshots are then `isFromCache` until the next event on a new stream).
        var inSync = false
        /// Where to resume it from on the next stream (`resumeAfter`): its position when it was last live.
        var resumePosition: String?
    }

    /// A target in client terms.
    enum LocalTarget: Sendable {
        case query(Query)
        case document(String)

        /// Whether a write to `path` can change the target.
        func covers(_ path: String) -> Bool {
            switch self {
            case .query(let query): LocalEvaluation.inSource(query, path)
            case .document(let document): document.bytesEqual(path)
            }
        }
    }

    struct State {
        var targets: [String: Target] = [:]
        var nextTargetNumber = 0
        var runner: Task<Void, Never>?
        var stream: EventStreamRequest?
        var connectionID: String?
        var lastEventID: String?
        /// Failed connection attempts in a row, for the backoff.
        var failures = 0
        var uid: String?
        var statistics = Statistics()
    }

    /// Counts of what the hub has seen (tests use them to tell a resumed stream from a fresh snapshot).
    struct Statistics: Sendable, Equatable {
        /// Streams opened (`connected` events).
        var connections = 0
        var snapshotEvents = 0
        var changesEvents = 0
    }

    var statistics: Statistics { state.current.statistics }

    /// Sent as `?affinity=` with every listen request, so that a load balancer in front of several nodes keeps this
    /// hub's stream and the POSTs that add its targets on one node (docs/scaling.md, "nginx"). Not a secret.
    let affinity = String(UInt64.random(in: .min ... .max), radix: 16)

    /// Where the targets of stream `connection` are added and removed.
    func targetsPath(_ connection: String) -> String { "/api/listen/\(connection)?affinity=\(affinity)" }

    init(auth: Auth, transport: Transport, offline: OfflineStore?) {
        self.auth = auth
        self.transport = transport
        self.offline = offline
        offline?.setObserver { [weak self] paths in self?.localChange(paths) }
    }

    // MARK: Listeners

    /// Registers a listener; returns its target id (for `remove`).
    func add(
        _ spec: DocumentData, local: LocalTarget, includeMetadataChanges: Bool = false,
        deliver: @escaping @Sendable (Update) -> Void, fail: @escaping @Sendable (any Error) -> Void
    ) -> String {
        let (id, connection) = state.withLock { state -> (String, String?) in
            state.nextTargetNumber += 1
            let id = "t\(state.nextTargetNumber)"
            state.targets[id] = Target(
                spec: spec, local: local, deliver: deliver, fail: fail, includeMetadataChanges: includeMetadataChanges)
            if state.runner == nil {
                state.runner = Task { await self.run() }
            }
            return (id, state.connectionID)
        }
        if let connection { Task { await self.send(adding: [id], to: connection) } }
        return id
    }

    /// Unregisters a listener (its stream ended); the last one closes the connection.
    func remove(_ id: String) {
        let (connection, stop) = state.withLock { state -> (String?, EventStreamRequest?) in
            guard state.targets.removeValue(forKey: id) != nil else { return (nil, nil) }
            guard state.targets.isEmpty else { return (state.connectionID, nil) }
            state.runner?.cancel()
            state.runner = nil
            defer {
                state.stream = nil
                state.connectionID = nil
            }
            return (nil, state.stream)
        }
        stop?.cancel()
        if let connection {
            Task {
                _ = try? await auth.call(
                    APIRequest("POST", targetsPath(connection), body: ["remove": [.string(id)]]))
            }
        }
    }

    /// The number of open listeners (for tests and diagnostics).
    var count: Int { state.current.targets.count }

    /// Drops the current stream as a network failure would (tests use it to check resumption).
    func dropConnection() { state.current.stream?.cancel() }

    // MARK: The stream

    enum Ending {
        case dropped
        case authRevoked
        case overflow
        case refused(KuraError)
    }

    func run() async {
        let watcher = Task { await self.watchAccount() }
        defer { watcher.cancel() }
        while !Task.isCancelled && !state.current.targets.isEmpty {
            let token: String?
            do {
                // The stream lasts only as long as its token: a nearly spent one would end it within moments.
                token = try await auth.streamIDToken()
            } catch let error as KuraError where error.isNetworkFailure || error.code == .tooManyAttemptsTryLater {
                showCache()
                await backOff()
                continue
            } catch {
                failAll(error)
                return
            }
            var request = URLRequest(url: transport.url("/api/listen?affinity=\(affinity)"))
            request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
            #if canImport(FoundationNetworking)
                // libcurl keeps a finished response's connection for reuse and does not watch it: a stream the
                // server ended (shutdown, `overflow`, an expired token) would stay half-open here, and the server
                // would wait out its linger for the close. A stream's connection is never reused anyway.
                request.setValue("close", forHTTPHeaderField: "Connection")
            #endif
            if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
            let stream = EventStreamRequest(request: request)
            let proceed = state.withLock { state -> Bool in
                guard !Task.isCancelled, !state.targets.isEmpty else { return false }
                state.stream = stream
                state.uid = auth.sessionUID
                return true
            }
            guard proceed else {
                stream.cancel()
                return
            }
            let ending = await consume(stream)
            stream.cancel()
            state.withLock { state in
                // A newer runner may own the state already (the last listener left and a new one came).
                if state.stream === stream {
                    state.stream = nil
                    state.connectionID = nil
                }
            }
            switch ending {
            case .overflow: continue
            case .authRevoked:
                guard await refresh(token) else { return }
            case .refused(let error) where Auth.isTokenRejection(error):
                guard await refresh(token) else { return }
            case .refused(let error)
            where error.code == .unavailable || error.code == .tooManyAttemptsTryLater
                || (error.status ?? 0) >= 500:
                showCache()
                await backOff()
            case .refused(let error):
                failAll(error)
                return
            case .dropped:
                showCache()
                await backOff()
            }
        }
    }

    /// After the server refused `token`: `true` to reconnect with the current credentials (a refreshed token, or
    /// none after a sign-out), `false` when the refresh itself failed and the listeners were failed with its error.
    func refresh(_ token: String?) async -> Bool {
        guard let token else { return true }
        do {
            // Signed out here meanwhile (the server's `auth_revoked` for that sign-out can arrive before the
            // listeners restart): listen on signed out, as Firestore re-sends its listeners, and let the rules decide.
            _ = try await auth.refreshRejectedToken(token)
            return true
        } catch let error as KuraError where error.isNetworkFailure {
            await backOff()
            return true
        } catch {
            failAll(error)
        }
        return false
    }

    func backOff() async {
        let failures = state.withLock { state -> Int in
            state.failures += 1
            return state.failures
        }
        // 0.1 s, 0.2 s, 0.4 s… up to 5 s, jittered, so a restarted server is not hit by every client at once.
        let ceiling = min(5.0, 0.1 * pow(2, Double(min(failures - 1, 10))))
        try? await Task.sleep(nanoseconds: UInt64(Double.random(in: ceiling / 2...ceiling) * 1e9))
    }

    /// Reads one stream until it ends. After a last event (`overflow`, `auth_revoked`) it waits for the server to
    /// close the stream rather than closing it here: a cancel that meets the server's close traps in
    /// swift-corelibs-foundation (`EventStreamRequest.cancel()`). A server that does not close within
    /// `lastEventGrace` seconds (a proxy holding the connection) is cancelled after all.
    func consume(_ stream: EventStreamRequest, lastEventGrace: Double = 2) async -> Ending {
        var watchdog: Task<Void, Never>?
        defer { watchdog?.cancel() }
        var last: Ending?
        for await update in stream.updates {
            switch update {
            case .opened: continue
            case .closed(let error):
                if let last { return last }
                if let error = error as? KuraError, !error.isNetworkFailure { return .refused(error) }
                return .dropped
            case .message where last != nil:
                continue  // nothing counts after a last event
            case .message(let message):
                let payload = (try? JSONText.decode(Data(message.data.utf8))) ?? .null
                switch message.event {
                case "connected":
                    guard let id = payload["connectionId"]?.stringValue else { return .dropped }
                    let heartbeat = payload["heartbeatSeconds"]?.doubleValue ?? 15
                    watchdog = Task { await self.watch(stream, heartbeat: heartbeat) }
                    let targets = state.withLock { state -> [String] in
                        guard state.stream === stream else { return [] }
                        // Targets that were live on the previous stream were at its last event id; the others
                        // keep the position they had (a target that had not caught up on a short-lived stream
                        // must not skip ahead with the others).
                        for key in state.targets.keys where state.targets[key]!.live {
                            state.targets[key]!.resumePosition = state.lastEventID
                            state.targets[key]!.live = false
                        }
                        state.connectionID = id
                        state.failures = 0
                        state.statistics.connections += 1
                        return state.targets.keys.sorted()
                    }
                    Task { await self.send(adding: targets, to: id) }
                    // The server is reachable again: queued writes can go.
                    offline?.serverReached()
                case "snapshot": receiveSnapshot(payload)
                case "changes": receiveChanges(payload)
                case "error":
                    let error = KuraError(
                        .init(rawValue: payload["code"]?.stringValue ?? ErrorCode.internal.rawValue),
                        payload["message"]?.stringValue ?? "listener failed")
                    guard let target = payload["target"]?.stringValue else { return .refused(error) }
                    fail(target, error)
                case "auth_revoked", "overflow":
                    last = message.event == "overflow" ? .overflow : .authRevoked
                    watchdog?.cancel()
                    watchdog = Task {
                        try? await Task.sleep(nanoseconds: UInt64(lastEventGrace * 1e9))
                        if !Task.isCancelled { stream.cancel() }
                    }
                default: break  // `reset` (a snapshot follows), id-only blocks, events of newer servers
                }
                if let id = message.id { state.withLock { $0.lastEventID = id } }
            }
        }
        return .dropped
    }

    /// Cancels `stream` when nothing (not even a heartbeat) arrived for a few heartbeat intervals.
    func watch(_ stream: EventStreamRequest, heartbeat: Double) async {
        let limit = max(3 * heartbeat, 2)
        while !Task.isCancelled {
            try? await Task.sleep(nanoseconds: UInt64(limit / 3 * 1e9))
            if ProcessInfo.processInfo.systemUptime - stream.lastActivity > limit {
                stream.cancel()
                return
            }
        }
    }

    /// Reconnects with the new credentials when the signed-in account changes.
    func watchAccount() async {
        for await user in auth.authStateChanges {
            let stale = state.withLock { state -> EventStreamRequest? in
                state.stream != nil && state.uid != user?.uid ? state.stream : nil
            }
            stale?.cancel()
        }
    }

    /// `POST /api/listen/{connection}` adding `ids`, one request each so one bad target fails alone.
    func send(adding ids: [String], to connection: String) async {
        for id in ids {
            let entry = state.withLock { state -> DocumentData? in
                guard let target = state.targets[id], state.connectionID == connection else { return nil }
                var entry = target.spec
                entry["id"] = .string(id)
                if let position = target.resumePosition { entry["resumeAfter"] = .string(position) }
                return entry
            }
            guard let entry else { continue }
            do {
                _ = try await auth.call(APIRequest("POST", targetsPath(connection), body: ["add": [.map(entry)]]))
            } catch let error as KuraError where !error.isNetworkFailure && error.code != .notFound {
                fail(id, error)
            } catch {
                // The stream is gone; the next one adds the target again.
            }
        }
    }
}
