import KuraCore
import KuraHTTP
import KuraModel
import Synchronization

/// One listen stream: the client at the other end, the listeners (targets) it carries, and the bounded queue in
/// front of its socket. Created by `ListenerRegistry.open`.
///
/// Events are produced on the change feed's thread and written on the stream's event loop. The bytes on their
/// way to the loop plus those the kernel has not taken yet may not exceed `maxQueuedBytes`: a client that falls
/// further behind is sent `event: overflow` and disconnected, instead of growing the server's memory.
public final class ListenConnection: Sendable {
    /// The stream's id, as sent in `event: connected` and named by `POST /api/listen/{id}`.
    public let id: String
    /// Who opened the stream; only they may add targets to it.
    public let principal: ListenPrincipal
    /// Where the client said it was (`Last-Event-ID`), for the targets given when the stream opened.
    public let resumePosition: StreamPosition?
    let stream: ResponseStream
    let maxQueuedBytes: Int
    private let inTransit = Atomic<Int>(0)
    private let closing = Atomic<Bool>(false)
    /// Set when the credentials must be checked again before the next delivery (a revocation may have been
    /// missed while the stream opened).
    let authCheckDue = Atomic<Bool>(false)
    let requests = Mutex(Requests())
    /// State the change feed keeps for the connection; feed thread only.
    let feedSide = FeedSide()

    /// The targets the client asked for, including those still being prepared.
    struct Requests {
        /// Target id → generation of its latest request (an add or replace); a registration of an older
        /// generation is stale and dropped.
        var generations: [String: UInt64] = [:]
        var nextGeneration: UInt64 = 1
        /// The target given in the stream's URL while it is being prepared: no other target is registered and
        /// no heartbeat moves the client's position until it has had its first event, so that a reconnect
        /// resumes it only from a position the client really had it at.
        var urlTarget: String?
    }

    /// The change feed's per-connection state.
    final class FeedSide: @unchecked Sendable {
        // `@unchecked`: read and written on the change feed's thread only.
        /// Active targets by id.
        var targets: [String: TargetState] = [:]
        /// Known to the feed (not yet closed).
        var attached = false
        /// Last plain position sent in an event id.
        var lastPosition: Int64 = -1
        /// When its credentials are next checked again.
        var nextAuthCheck: Double = 0
    }

    init(
        id: String, principal: ListenPrincipal, stream: ResponseStream, resumePosition: StreamPosition?,
        maxQueuedBytes: Int
    ) {
        self.id = id
        self.principal = principal
        self.stream = stream
        self.resumePosition = resumePosition
        self.maxQueuedBytes = maxQueuedBytes
    }

    /// Whether the connection is closing or closed (overflow, revoked credentials, client gone).
    public var isClosing: Bool { closing.load(ordering: .acquiring) || stream.isClosed }

    // MARK: Requests

    /// Records a request for target `id`; returns its generation. 429 `RESOURCE_EXHAUSTED` past `maxTargets`.
    func request(_ targetID: String, maxTargets: Int, fromURL: Bool = false) throws -> UInt64 {
        try requests.withLock { requests in
            if requests.generations[targetID] == nil && requests.generations.count >= maxTargets {
                throw APIError.resourceExhausted(
                    "a listen stream carries at most \(maxTargets) targets")
            }
            let generation = requests.nextGeneration
            requests.nextGeneration += 1
            requests.generations[targetID] = generation
            if fromURL { requests.urlTarget = targetID }
            return generation
        }
    }

    /// Forgets target `id` (removed by the client); returns whether it was asked for.
    @discardableResult
    func cancel(_ targetID: String) -> Bool {
        requests.withLock { requests in
            if requests.urlTarget == targetID { requests.urlTarget = nil }
            return requests.generations.removeValue(forKey: targetID) != nil
        }
    }

    /// Whether `generation` is still the current request for `targetID`.
    func isCurrent(_ targetID: String, _ generation: UInt64) -> Bool {
        requests.withLock { $0.generations[targetID] == generation }
    }

    /// A target failed or was dropped by the server: forget it (only if `generation` is still current).
    func drop(_ targetID: String, _ generation: UInt64) {
        requests.withLock { requests in
            guard requests.generations[targetID] == generation else { return }
            requests.generations[targetID] = nil
            if requests.urlTarget == targetID { requests.urlTarget = nil }
        }
    }

    /// The URL target has had its first event (or failed).
    func urlTargetSettled(_ targetID: String) {
        requests.withLock { if $0.urlTarget == targetID { $0.urlTarget = nil } }
    }

    // MARK: Delivery

    /// Queues `bytes` (whole events) for the client; called from the change feed's thread. Past the limit the
    /// connection overflows instead.
    func send(_ bytes: [UInt8]) {
        guard admit(bytes) else { return }
        stream.eventLoop.execute { [self] in write(bytes) }
    }

    /// Queues each connection's bytes like `send`, with one hand-off per event loop instead of one per
    /// connection (a page of changes for many streams wakes each loop once).
    /// With `timings`, records when each loop took its deliveries and when it had written them, from
    /// `committedAt` (the newest entry's commit time) and from now.
    static func send(
        _ deliveries: [(ListenConnection, [UInt8])], timings: StageTimings? = nil, committedAt: Int64 = 0
    ) {
        var byLoop: [ObjectIdentifier: (loop: EventLoop, items: [(ListenConnection, [UInt8])])] = [:]
        for (connection, bytes) in deliveries where connection.admit(bytes) {
            let loop = connection.stream.eventLoop
            byLoop[ObjectIdentifier(loop), default: (loop, [])].items.append((connection, bytes))
        }
        let handedAt = timings == nil ? 0 : WallClock.nowMicros()
        for (_, batch) in byLoop {
            let items = batch.items
            batch.loop.execute {
                let started = timings == nil ? 0 : WallClock.nowMicros()
                for (connection, bytes) in items { connection.write(bytes) }
                if let timings {
                    let now = WallClock.nowMicros()
                    timings.record("handed→loop", micros: started - handedAt)
                    timings.record("loop write", micros: now - started)
                    timings.record("commit→written", micros: now - committedAt)
                }
            }
        }
    }

    /// Counts `bytes` as on their way to the loop; false (and the connection overflows when it is past the
    /// limit) when they are not to be sent.
    private func admit(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty, !isClosing else { return false }
        let count = bytes.count
        let (_, transit) = inTransit.add(count, ordering: .relaxed)
        if transit > count && transit > maxQueuedBytes {
            inTransit.subtract(count, ordering: .relaxed)
            overflow()
            return false
        }
        return true
    }

    /// Writes admitted bytes; on the stream's event loop.
    private func write(_ bytes: [UInt8]) {
        let count = bytes.count
        inTransit.subtract(count, ordering: .relaxed)
        guard !closing.load(ordering: .acquiring) else { return }
        // Fresh from the loop: what the kernel has not taken yet.
        let queued = stream.queuedBytes
        if queued > 0 && queued + count > maxQueuedBytes { return overflow() }
        stream.write(bytes)
    }

    /// The credentials were revoked (or the account disabled, deleted or changed): `event: auth_revoked`, then
    /// close. From the moment this returns no further event is written, even one already on its way to the loop.
    func revoke(code: ErrorCode = .unauthenticated, message: String) {
        terminate(ListenEvent.terminal("auth_revoked", code: code, message: message))
    }

    /// The client cannot keep up: tell it (it resumes with `Last-Event-ID`) and close.
    func overflow() {
        terminate(
            ListenEvent.terminal(
                "overflow", code: .overflow,
                message: "the client did not read fast enough; reconnect with Last-Event-ID to resume"))
    }

    /// Sends a last event and closes the connection. Events still on their way to the loop are dropped (each event
    /// is whole or absent, so the client's `Last-Event-ID` stays exact).
    func terminate(_ lastEvent: [UInt8]) {
        guard !closing.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let stream = self.stream
        stream.eventLoop.execute {
            stream.write(lastEvent)
            stream.finish(closingConnection: true)
        }
    }
}
