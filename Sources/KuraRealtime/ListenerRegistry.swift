import KuraCore
import KuraHTTP
import KuraModel
import KuraStore
import Synchronization

/// The realtime listeners of one server: open streams, the targets they carry, and the change feed that delivers
/// every committed write to the listeners it concerns (docs/realtime.md).
///
/// Adding a target prepares it on the worker pool (a snapshot exact at a known change-log sequence, or, when
/// resuming, the client's documents as they were at its position followed by the changes since), then hands it to
/// the change feed's thread, which owns every active listener from then on.
public final class ListenerRegistry: Sendable {
    public let configuration: RealtimeConfiguration
    let store: any DocumentStore
    let access: any ListenAccess
    let logger: Logger
    let signal: ChangeSignal
    let reader: TargetReader
    private let connections = Mutex<[String: ListenConnection]>([:])
    let inbox = Mutex<[InboxItem]>([])
    private let nextKey = Atomic<Int>(1)
    private let feed: ChangeFeed
    let activeTargets = Atomic<Int>(0)
    /// Where a change's time goes between its commit and its listeners' sockets, logged every few seconds at
    /// `debug`; `nil` (nothing recorded) at other levels.
    let timings: StageTimings?

    /// Work handed to the change feed's thread.
    enum InboxItem {
        case register(Registration)
        case failed(ListenConnection, targetID: String, generation: UInt64, APIError)
        case remove(ListenConnection, targetID: String)
        case closed(ListenConnection)
    }

    /// `store` must be the store whose commits poke `signal` (see `ChangeNotifyingStore`). `timings`, when given,
    /// receives the feed's stage times (and those of whoever else was given it) and is logged at `debug`.
    public init(
        store: any DocumentStore, access: any ListenAccess, configuration: RealtimeConfiguration,
        signal: ChangeSignal, logger: Logger, timings: StageTimings? = nil
    ) {
        self.store = store
        self.timings = timings
        self.access = access
        self.configuration = configuration
        self.signal = signal
        self.logger = logger
        reader = TargetReader(store: store)
        feed = ChangeFeed()
    }

    /// Starts the change feed's thread.
    public func start() { feed.start(self) }

    /// Stops the change feed (streams themselves are closed by the HTTP server's shutdown).
    public func shutdown() { feed.stop(signal) }

    /// Open listen streams.
    public var connectionCount: Int { connections.withLock { $0.count } }

    /// Active listeners (targets that had their first event).
    public var targetCount: Int { activeTargets.load(ordering: .relaxed) }

    /// Whether another stream may open (`realtime.maxConnections`).
    public var hasCapacity: Bool { connectionCount < configuration.maxConnections }

    /// Every open stream, for the feed's timers.
    var allConnections: [ListenConnection] { connections.withLock { Array($0.values) } }

    // MARK: Streams

    /// Registers a new stream on `stream` and sends `event: connected`. Runs on the stream's loop. Throws 503
    /// past `realtime.maxConnections`.
    public func open(principal: ListenPrincipal, stream: ResponseStream, resume: StreamPosition?) throws
        -> ListenConnection
    {
        let connection = ListenConnection(
            id: SecureRandom.hex(16), principal: principal, stream: stream, resumePosition: resume,
            maxQueuedBytes: configuration.maxQueuedBytes)
        try connections.withLock { map in
            guard map.count < configuration.maxConnections else {
                throw APIError.unavailable("too many listen streams (limit \(configuration.maxConnections))")
            }
            map[connection.id] = connection
        }
        // After the insertion: a revocation from now on finds the stream in `revoke(where:)`; one that happened
        // since the principal was resolved is caught here.
        if access.revocationEpoch != principal.revocationEpoch {
            connection.authCheckDue.store(true, ordering: .releasing)
        }
        connection.feedSide.nextAuthCheck = MonotonicClock.seconds() + configuration.authCheckSeconds
        stream.write(ListenEvent.connected(connection.id, heartbeatSeconds: configuration.heartbeatSeconds))
        stream.onClose { [self] in
            _ = connections.withLock { $0.removeValue(forKey: connection.id) }
            post(.closed(connection))
        }
        return connection
    }

    /// Ends at once every open stream whose principal `isRevoked` says has lost its access: each is sent
    /// `event: auth_revoked` and closed, and no event after it is written (changes already on their way to the
    /// stream's loop are dropped). Call right after the revocation, from any thread; `isRevoked` must only touch
    /// memory. The feed's periodic re-check (`authCheckSeconds`) remains for revocations made by other processes.
    public func revoke(where isRevoked: (ListenPrincipal) -> Bool) {
        for connection in allConnections where !connection.isClosing && isRevoked(connection.principal) {
            connection.revoke(message: "the credentials were revoked or the account disabled or changed")
        }
    }

    /// Makes the change feed check the credentials of every open stream again within a second, ending those that
    /// no longer hold: for a node that may have missed another node's revocation (docs/scaling.md).
    public func recheckAllCredentials() {
        for connection in allConnections { connection.authCheckDue.store(true, ordering: .releasing) }
        signal.poke()
    }

    /// The open stream with this id.
    public func connection(_ id: String) -> ListenConnection? { connections.withLock { $0[id] } }

    // MARK: Targets

    /// Adds (or replaces) `target` on `connection`: prepared on the worker pool, then live. With `resumeAfter`
    /// (an event id the client had), the client is sent the changes since instead of a snapshot, or `reset` and
    /// a snapshot when the change log no longer reaches back that far. `fromURL` marks the target given when the
    /// stream opened. Throws 429 past `realtime.maxTargetsPerConnection`, 503 when the worker queue is full.
    public func add(
        _ target: ListenTarget, to connection: ListenConnection, resumeAfter: StreamPosition?, fromURL: Bool = false,
        workers: WorkerPool, loop: EventLoop
    ) throws {
        let generation = try connection.request(
            target.id, maxTargets: configuration.maxTargetsPerConnection, fromURL: fromURL)
        do {
            try workers.submit(
                on: loop, { [self] in prepare(target, connection, generation, resumeAfter) }, completion: { _ in })
        } catch {
            connection.drop(target.id, generation)
            throw error
        }
    }

    /// Removes target `targetID` from `connection`; returns whether it existed.
    @discardableResult
    public func remove(_ targetID: String, from connection: ListenConnection) -> Bool {
        guard connection.cancel(targetID) else { return false }
        post(.remove(connection, targetID: targetID))
        return true
    }

    func post(_ item: InboxItem) {
        inbox.withLock { $0.append(item) }
        signal.poke()
    }

    func nextTargetKey() -> Int { nextKey.add(1, ordering: .relaxed).newValue }
}
