import KuraCore
import KuraEngine
import KuraPostgres
import KuraStore
import Synchronization

/// What a node tells the other nodes on one PostgreSQL database, and hears from them (`ClusterChannel`):
/// `NOTIFY kura_cluster` with a small JSON payload (`ClusterEvent.payload(from:)`), sent on a pooled connection, and
/// `LISTEN kura_cluster, kura_changes` on a connection of its own, read by a thread of its own (`kura-cluster`).
/// `kura_changes` is the document store's: every commit notifies it with the newest change-log sequence;
/// `kura_signing_keys` is the signing-key store's: every rotation notifies it in its transaction (also one made by
/// `kura admin rotate-keys`, which runs no channel).
///
/// A notification is delivered to every session listening when the sending transaction commits, and to none that
/// is not: after any reconnect (the database restarted, a failover, a network cut) the channel assumes it missed
/// events and delivers `.resync` before anything else. It reconnects by itself (every 50 ms at first, backing off
/// to once a second), following a multi-host `store.url` to a promoted standby. While it is not listening it
/// delivers `.disconnected` once, so the node stops trusting its cached tokens until that `.resync`.
///
/// **Waiting for the other nodes** (`publishAndWait`). While listening, the node records itself alive in
/// `cluster_nodes` every `heartbeat` (its name, the database's `now()`, and what `announce` told: its address
/// and version; its start), on the listening connection, so a node
/// whose listener is gone stops counting as alive; a stopping node removes its row. An event sent with an id is
/// acknowledged by every node that hears it, after its handler returned: `NOTIFY kura_cluster_ack` with the id and
/// the node's name, from the listening thread. The sender reads the nodes seen within `liveness`, sends, and waits
/// for each of them to acknowledge, up to its timeout.
///
/// **Noticing silence.** A connection can die without an error (the server's host or the network vanished, no
/// reset): reads then simply wait. So the heartbeat is sent without waiting (`sendQuery`) while the thread goes on
/// waiting for notifications, and a heartbeat unanswered for `silenceLimit` (`liveness` − 2 × `heartbeat`, 3 s by
/// default) counts as a lost connection: `.disconnected`, then a new connection. A node thus stops trusting its
/// caches before the others stop counting it alive (its last answered heartbeat was sent at most `heartbeat`
/// before the unanswered one). The listening connection also has TCP keepalives and `tcp_user_timeout` at that
/// limit, over `store.url`'s, so a statement it waits for (an acknowledgement) fails in that time as well.
public final class PostgresClusterChannel: ClusterChannel, Sendable {
    /// The channel nodes notify each other on.
    public static let channelName = "kura_cluster"
    /// The channel the document store notifies on each commit, with the newest sequence as payload.
    public static let changesChannel = "kura_changes"
    /// The channel nodes acknowledge events on (`ClusterAcknowledgements.payload`).
    public static let acknowledgementChannel = "kura_cluster_ack"

    /// This node's name in payloads (its own notifications come back to its listener and are skipped).
    public let node: String
    public let shared: (any SharedNodeState)?
    private let database: PostgresDatabase
    private let log: @Sendable (String) -> Void
    private let thread = ServiceThread(name: "kura-cluster")
    /// How long one wait for notifications lasts: bounds how long `stop()` takes.
    private let waitSlice: Duration = .milliseconds(200)
    private let status = Mutex(Status())
    /// How often a listening node records itself alive.
    private let heartbeat: Duration
    /// How recently a node must have recorded itself alive to be waited for.
    private let liveness: Duration
    /// How long a heartbeat may stay unanswered before the listening connection counts as lost.
    let silenceLimit: Duration
    private let acknowledgements = ClusterAcknowledgements()
    /// What the heartbeat records about this node besides its name (`announce`).
    private let about = Mutex((address: "", version: ""))
    /// When the channel (this node) started, in microseconds since 1970.
    private let startedMicros = WallClock.nowMicros()
    /// How long rows of nodes no longer seen stay listed in `members()`.
    static let membersKeptFor = "1 hour"

    private struct Status {
        var connects = 0
        var listenerProcessID: Int32 = 0
    }

    /// A channel for `database`, named `node` in what it sends; `log` gets connection losses and recoveries. A
    /// listening node records itself alive every `heartbeat`; a sender waits for the nodes seen within `liveness`.
    public init(
        database: PostgresDatabase, node: String, heartbeat: Duration = .seconds(1), liveness: Duration = .seconds(5),
        log: @escaping @Sendable (String) -> Void
    ) {
        self.database = database
        self.node = node
        self.heartbeat = heartbeat
        self.liveness = liveness
        silenceLimit = max(heartbeat, liveness - heartbeat * 2)
        self.log = log
        shared = PostgresSharedState(database: database, node: node)
    }

    /// How many times the listener connected (1 after the first connection); for tests and diagnostics.
    public var connects: Int { status.withLock { $0.connects } }

    /// The server process of the listening session (`pg_stat_activity.pid`); 0 while disconnected.
    public var listenerProcessID: Int32 { status.withLock { $0.listenerProcessID } }

    public func publish(_ event: ClusterEvent) throws {
        let payload = event.payload(from: node)
        try database.prepared().withConnection { try $0.notify(Self.channelName, payload: payload) }
    }

    public func publishAndWait(_ event: ClusterEvent, timeout: Duration) throws -> [String] {
        let id = SecureRandom.hex(8)
        let payload = event.payload(from: node, id: id)
        acknowledgements.expect(id)
        let alive: [String]
        do {
            alive = try database.prepared().withConnection { connection in
                let rows = try connection.query(
                    """
                    SELECT name FROM cluster_nodes
                    WHERE name <> $1 AND seen_at > now() - $2 * interval '1 millisecond' ORDER BY name
                    """, [.text(node), .int(Self.milliseconds(liveness))], prepared: true)
                try connection.notify(Self.channelName, payload: payload)
                return (0..<rows.rowCount).compactMap { rows.string($0, 0) }
            }
        } catch {
            acknowledgements.forget(id)
            throw error
        }
        let deadline = MonotonicClock.nanoseconds() + UInt64(Self.milliseconds(timeout)) * 1_000_000
        return acknowledgements.wait(for: id, from: alive, untilNanoseconds: deadline)
    }

    public func announce(address: String, version: String) {
        about.withLock { $0 = (address, version) }
    }

    public func members() throws -> [ClusterMember]? {
        try database.prepared().withConnection { connection in
            let rows = try connection.query(
                """
                SELECT name, address, version, (extract(epoch FROM started_at) * 1000000)::bigint,
                    (extract(epoch FROM seen_at) * 1000000)::bigint,
                    (extract(epoch FROM now() - seen_at) * 1000)::bigint,
                    seen_at > now() - $1 * interval '1 millisecond'
                FROM cluster_nodes WHERE seen_at > now() - interval '\(Self.membersKeptFor)'
                ORDER BY started_at, name
                """, [.int(Self.milliseconds(liveness))], prepared: true)
            return try (0..<rows.rowCount).map { row in
                let name = rows.string(row, 0) ?? ""
                return ClusterMember(
                    name: name, address: rows.string(row, 1) ?? "", version: rows.string(row, 2) ?? "",
                    startedMicros: try rows.int(row, 3) ?? 0, seenMicros: try rows.int(row, 4) ?? 0,
                    seenMillisecondsAgo: max(0, try rows.int(row, 5) ?? 0), alive: try rows.bool(row, 6) ?? false,
                    isSelf: name == node)
            }
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    public func start(_ handler: @escaping @Sendable (ClusterEvent) -> Void) {
        thread.start { [self] in run(handler) }
    }

    public func stop() { thread.stop() }

    private func run(_ handler: @escaping @Sendable (ClusterEvent) -> Void) {
        var connection: PostgresConnection?
        var reportedLoss = false
        var retry = 0.05
        var lastHeartbeat: UInt64 = 0
        /// When the heartbeat in flight was sent (nil: none is).
        var heartbeatSent: UInt64?
        let heartbeatNanoseconds = UInt64(Self.milliseconds(heartbeat)) * 1_000_000
        let silenceNanoseconds = UInt64(Self.milliseconds(silenceLimit)) * 1_000_000
        // Connecting keeps the node's own bound (`store.tcpTimeoutSeconds`): a slow start is not a silent session.
        let timeouts = PostgresConnectionOptions.unansweredConnectionTimeout(silenceLimit).filter {
            $0.key != "connect_timeout"
        }
        defer {
            // Stopping: not alive any more, so nobody waits for this node's acknowledgements. The heartbeat in
            // flight, if any, is answered first (or the connection is given up).
            if let connection {
                while connection.awaitsAnswer,
                    MonotonicClock.nanoseconds() &- (heartbeatSent ?? 0) < silenceNanoseconds,
                    (try? connection.notifications(waitingUpTo: waitSlice)) != nil
                {}
                if !connection.awaitsAnswer {
                    _ = try? connection.query("DELETE FROM cluster_nodes WHERE name = $1", [.text(node)])
                }
            }
        }
        while !thread.isStopping {
            guard let listening = connection else {
                do {
                    let opened = try database.connect(overriding: timeouts)
                    try opened.listen(Self.channelName)
                    try opened.listen(Self.changesChannel)
                    try opened.listen(PostgresSigningKeyStore.rotationChannel)
                    try opened.listen(Self.acknowledgementChannel)
                    // Alive only once listening: whoever reads this row afterwards, this node hears.
                    try recordAlive(on: opened)
                    // Rows of nodes killed long ago (each process is a new name): nobody waits for them anyway.
                    try opened.query("DELETE FROM cluster_nodes WHERE seen_at < now() - interval '1 day'")
                    lastHeartbeat = MonotonicClock.nanoseconds()
                    heartbeatSent = nil
                    connection = opened
                    let connects = status.withLock { status in
                        status.connects += 1
                        status.listenerProcessID = opened.serverProcessID
                        return status.connects
                    }
                    if connects > 1 {
                        log("cluster: listening to the other nodes again; forgetting what this node had cached")
                    }
                    reportedLoss = false
                    retry = 0.05
                    handler(.resync)
                } catch {
                    if !reportedLoss {
                        log("cluster: cannot listen to the other nodes (\(error)); retrying")
                        reportedLoss = true
                    }
                    thread.sleep(nanoseconds: UInt64(retry * 1e9))
                    retry = min(retry * 2, 1)
                }
                continue
            }
            do {
                try deliver(try listening.notifications(waitingUpTo: waitSlice), on: listening, to: handler)
                if try listening.takeAnswer() != nil { heartbeatSent = nil }
                let now = MonotonicClock.nanoseconds()
                if let sent = heartbeatSent {
                    if now &- sent >= silenceNanoseconds {
                        throw PostgresError(
                            kind: .connectionLost, message: "a heartbeat went unanswered for \(silenceLimit)")
                    }
                } else if now &- lastHeartbeat >= heartbeatNanoseconds {
                    try listening.sendQuery(Self.recordAliveSQL, aliveParameters(), prepared: true)
                    heartbeatSent = now
                    lastHeartbeat = now
                }
            } catch {
                log("cluster: lost the notifications connection (\(error)); reconnecting")
                reportedLoss = true
                connection = nil
                status.withLock { $0.listenerProcessID = 0 }
                handler(.disconnected)
            }
        }
    }

    /// Records the node named `$1` alive now (`cluster_nodes`), with its address, version and start (microseconds
    /// since 1970).
    private static let recordAliveSQL = """
        INSERT INTO cluster_nodes (name, seen_at, address, version, started_at)
        VALUES ($1, now(), $2, $3, to_timestamp($4::float8 / 1000000))
        ON CONFLICT (name) DO UPDATE SET seen_at = now(), address = excluded.address, version = excluded.version
        """

    private func aliveParameters() -> [PostgresValue] {
        let (address, version) = about.withLock { $0 }
        return [.text(node), .text(address), .text(version), .int(startedMicros)]
    }

    /// Records this node alive now, waiting for the answer.
    private func recordAlive(on connection: PostgresConnection) throws {
        try connection.query(Self.recordAliveSQL, aliveParameters(), prepared: true)
    }

    /// Hands the handler the other nodes' events in the order they came, acknowledging each that asks for it once
    /// the handler returned, then one `documentsChanged` for the newest sequence among the commits notified (a
    /// burst of commits is one wake-up). Acknowledgements of this node's events are handed to their waiters.
    private func deliver(
        _ notifications: [PostgresNotification], on connection: PostgresConnection, to handler: (ClusterEvent) -> Void
    ) throws {
        var newest: Int64?
        var rotated = false
        for notification in notifications {
            if notification.channel == PostgresSigningKeyStore.rotationChannel {
                rotated = true
                continue
            }
            if notification.channel == Self.acknowledgementChannel {
                if let (id, from) = ClusterAcknowledgements.decode(notification.payload) {
                    acknowledgements.record(id, from: from)
                }
                continue
            }
            if notification.channel == Self.changesChannel {
                let sequence = Int64(notification.payload) ?? Int64.max
                newest = max(newest ?? sequence, sequence)
                continue
            }
            guard let (from, id, event) = ClusterEvent.decodeWithID(notification.payload) else {
                log(
                    "cluster: ignored a notification this build does not understand: \(notification.payload.prefix(200))"
                )
                continue
            }
            guard from != node else { continue }
            handler(event)
            if let id {
                try connection.notify(
                    Self.acknowledgementChannel, payload: ClusterAcknowledgements.payload(id: id, node: node))
            }
        }
        if rotated { handler(.signingKeysRotated) }
        if let newest { handler(.documentsChanged(through: newest)) }
    }
}
