import KuraCore
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
/// to once a second), following a multi-host `store.url` to a promoted standby.
public final class PostgresClusterChannel: ClusterChannel, @unchecked Sendable {
    /// The channel nodes notify each other on.
    public static let channelName = "kura_cluster"
    /// The channel the document store notifies on each commit, with the newest sequence as payload.
    public static let changesChannel = "kura_changes"

    /// This node's name in payloads (its own notifications come back to its listener and are skipped).
    public let node: String
    public let shared: (any SharedNodeState)?
    private let database: PostgresDatabase
    private let log: @Sendable (String) -> Void
    private let thread = ServiceThread(name: "kura-cluster")
    /// How long one wait for notifications lasts: bounds how long `stop()` takes.
    private let waitSlice: Duration = .milliseconds(200)
    private let status = Mutex(Status())

    private struct Status {
        var connects = 0
        var listenerProcessID: Int32 = 0
    }

    /// A channel for `database`, named `node` in what it sends; `log` gets connection losses and recoveries.
    public init(database: PostgresDatabase, node: String, log: @escaping @Sendable (String) -> Void) {
        self.database = database
        self.node = node
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

    public func start(_ handler: @escaping @Sendable (ClusterEvent) -> Void) {
        thread.start { [self] in run(handler) }
    }

    public func stop() { thread.stop() }

    private func run(_ handler: @escaping @Sendable (ClusterEvent) -> Void) {
        var connection: PostgresConnection?
        var reportedLoss = false
        var retry = 0.05
        while !thread.isStopping {
            guard let listening = connection else {
                do {
                    let opened = try PostgresConnection(url: database.url)
                    try opened.listen(Self.channelName)
                    try opened.listen(Self.changesChannel)
                    try opened.listen(PostgresSigningKeyStore.rotationChannel)
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
                deliver(try listening.notifications(waitingUpTo: waitSlice), to: handler)
            } catch {
                log("cluster: lost the notifications connection (\(error)); reconnecting")
                reportedLoss = true
                connection = nil
                status.withLock { $0.listenerProcessID = 0 }
            }
        }
    }

    /// Hands the handler the other nodes' events in the order they came, then one `documentsChanged` for the
    /// newest sequence among the commits notified (a burst of commits is one wake-up).
    private func deliver(_ notifications: [PostgresNotification], to handler: (ClusterEvent) -> Void) {
        var newest: Int64?
        var rotated = false
        for notification in notifications {
            if notification.channel == PostgresSigningKeyStore.rotationChannel {
                rotated = true
                continue
            }
            if notification.channel == Self.changesChannel {
                let sequence = Int64(notification.payload) ?? Int64.max
                newest = max(newest ?? sequence, sequence)
                continue
            }
            guard let (from, event) = ClusterEvent.decode(notification.payload) else {
                log(
                    "cluster: ignored a notification this build does not understand: \(notification.payload.prefix(200))"
                )
                continue
            }
            if from != node { handler(event) }
        }
        if rotated { handler(.signingKeysRotated) }
        if let newest { handler(.documentsChanged(through: newest)) }
    }
}
