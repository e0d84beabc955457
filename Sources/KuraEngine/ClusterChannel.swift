import KuraModel

/// Something one node tells the other nodes on the same engine, so that what they hold in memory stays correct
/// (docs/design/scaling.md, "What nodes tell each other"). Every event is a hint to read the truth again (the
/// database); none carries data another node would trust without reading it.
public enum ClusterEvent: Sendable, Equatable {
    /// The change log grew up to `through` (the engine's commit notification): follow it, and forget the cached
    /// documents it names.
    case documentsChanged(through: Int64)
    /// An account changed in a way that only widens or keeps what its tokens grant (a new display name, a verified
    /// address): forget the cached account and re-check its cached tokens.
    case accountChanged(uid: String)
    /// Access granted earlier no longer holds (`Revocation` in KuraAuth): as `accountChanged`, and end the
    /// listen streams it covers.
    case revoked(uid: String, sessionID: String?, keptSessionID: String?)
    /// The ID-token signing keys were rotated: read them again.
    case signingKeysRotated
    /// A new version of the security rules was published: read it and put it in force.
    case rulesPublished(version: Int64)
    /// The channel (re)connected: events may have been missed while it was not listening, so everything cached
    /// must be forgotten and the rules and keys read again. Also delivered once when the channel first listens.
    case resync
    /// The channel stopped listening (its connection was lost): until the next `resync`, this node may miss what
    /// the others revoke, so nothing it cached about tokens may be trusted. Never sent to other nodes.
    case disconnected
}

/// What a node publishes to and hears from the other nodes on the same engine, opened through the engine
/// (`NodeEngine.openCluster`). The SQLite engine has one node per data directory, so its channel is local: it
/// publishes to nobody and hears nothing. The PostgreSQL engine's uses `LISTEN`/`NOTIFY`.
public protocol ClusterChannel: Sendable {
    /// The state every node of the engine shares (rules, admin key); `nil` when the node is alone (the data
    /// directory is the truth).
    var shared: (any SharedNodeState)? { get }

    /// Tells every other node `event`, synchronously: when this returns, the event is on its way to every node
    /// listening (PostgreSQL: the `NOTIFY` committed). Never delivered back to this node.
    func publish(_ event: ClusterEvent) throws

    /// Tells every other node `event`, as `publish`, then waits until every other node alive on the engine has
    /// applied it (its handler returned), or until `timeout` passed. Returns the names of the live nodes that did
    /// not confirm in time, empty when all did (or when there is nobody to tell). Blocks: never call it on an
    /// event loop.
    func publishAndWait(_ event: ClusterEvent, timeout: Duration) throws -> [String]

    /// Starts hearing the other nodes: `handler` is called with each event, on the channel's own thread, one at a
    /// time. Call once.
    func start(_ handler: @escaping @Sendable (ClusterEvent) -> Void)

    /// Stops hearing; returns once `handler` will not be called again.
    func stop()

    /// The nodes on the engine as they last recorded themselves alive, this one included, the oldest first; `nil`
    /// when the node is alone (SQLite). Blocks: never call it on an event loop.
    func members() throws -> [ClusterMember]?

    /// What this node tells the others about itself from now on: where it answers (`host:port`) and its version.
    func announce(address: String, version: String)
}

extension ClusterChannel {
    public func members() throws -> [ClusterMember]? { nil }
    public func announce(address: String, version: String) {}
}

/// A node on a shared engine as it last recorded itself alive (`ClusterChannel.members()`).
public struct ClusterMember: Sendable, Equatable {
    /// The node's name among the nodes (host, process id, a random part).
    public var name: String
    /// Where it answers, `host:port`; empty until it announced it.
    public var address: String
    /// Its `kura` version; empty until it announced it.
    public var version: String
    /// When it started, in microseconds since 1970.
    public var startedMicros: Int64
    /// When it last recorded itself alive, in microseconds since 1970 (the database's clock).
    public var seenMicros: Int64
    /// How long ago that was by the database's clock, in milliseconds.
    public var seenMillisecondsAgo: Int64
    /// Whether it recorded itself alive recently enough to count as alive (the others wait for it).
    public var alive: Bool
    /// Whether it is the node asking.
    public var isSelf: Bool

    public init(
        name: String, address: String, version: String, startedMicros: Int64, seenMicros: Int64,
        seenMillisecondsAgo: Int64, alive: Bool, isSelf: Bool
    ) {
        self.name = name
        self.address = address
        self.version = version
        self.startedMicros = startedMicros
        self.seenMicros = seenMicros
        self.seenMillisecondsAgo = seenMillisecondsAgo
        self.alive = alive
        self.isSelf = isSelf
    }
}

/// One version of the security rules as the nodes share it.
public struct SharedRules: Sendable, Equatable {
    /// Increases by one with every publication.
    public var version: Int64
    /// The rules text.
    public var source: String

    public init(version: Int64, source: String) {
        self.version = version
        self.source = source
    }
}

/// What the nodes of a shared engine keep in the database rather than in their data directories: the security
/// rules, by version, and the admin key. Thread-safe; each method is atomic across nodes.
public protocol SharedNodeState: Sendable {
    /// The newest version of the rules; `nil` before the first publication.
    func latestRules() throws -> SharedRules?

    /// The newest version's number only (cheap enough to poll every second); 0 before the first publication.
    func latestRulesVersion() throws -> Int64

    /// The rules of `version`, if it exists.
    func rules(version: Int64) throws -> SharedRules?

    /// Publishes `source` as a new version — unless it is the newest version's text already, whose version is then
    /// returned with `published == false` (several nodes publishing the same file make one version).
    func publishRules(_ source: String) throws -> (rules: SharedRules, published: Bool)

    /// The admin key every node accepts: the stored one, or `proposed` when none is stored yet (then stored).
    func adminKey(proposing proposed: String) throws -> String
}

/// The channel of a node that is alone on its engine (SQLite: one node per data directory, `DataDirectoryLock`).
public final class LocalClusterChannel: ClusterChannel {
    public init() {}
    public var shared: (any SharedNodeState)? { nil }
    public func publish(_ event: ClusterEvent) throws {}
    public func publishAndWait(_ event: ClusterEvent, timeout: Duration) throws -> [String] { [] }
    public func start(_ handler: @escaping @Sendable (ClusterEvent) -> Void) {}
    public func stop() {}
}

extension ClusterEvent {
    /// The event as a notification payload from node `node`, with `id` when the sender waits for the other nodes'
    /// acknowledgements (`publishAndWait`) (compact JSON, far below `NOTIFY`'s 8000 bytes for
    /// any uid the API accepts); `resync` and `documentsChanged` are never sent this way.
    public func payload(from node: String, id: String? = nil) -> String {
        var object: JSONObject = ["from": .string(node)]
        if let id { object["id"] = .string(id) }
        switch self {
        case .documentsChanged(let through):
            object["event"] = "documents"
            object["through"] = .int(through)
        case .accountChanged(let uid):
            object["event"] = "account"
            object["uid"] = .string(uid)
        case .revoked(let uid, let sessionID, let keptSessionID):
            object["event"] = "revoked"
            object["uid"] = .string(uid)
            if let sessionID { object["session"] = .string(sessionID) }
            if let keptSessionID { object["kept"] = .string(keptSessionID) }
        case .signingKeysRotated:
            object["event"] = "keys"
        case .rulesPublished(let version):
            object["event"] = "rules"
            object["version"] = .int(version)
        case .resync:
            object["event"] = "resync"
        case .disconnected:
            object["event"] = "disconnected"
        }
        return JSONValue.object(object).jsonString
    }

    /// Decodes `payload(from:)`: the sending node and the event; `nil` for anything else (a newer build's event
    /// this one does not know is then ignored, and its effect reaches this node through the periodic re-checks).
    public init?(payload: String) {
        guard let (_, event) = Self.decode(payload) else { return nil }
        self = event
    }

    /// The sending node and the event of a payload made by `payload(from:)`.
    public static func decode(_ payload: String) -> (from: String, event: ClusterEvent)? {
        decodeWithID(payload).map { ($0.from, $0.event) }
    }

    /// The sending node, the id it waits for acknowledgements of (`nil` when it does not wait) and the event of a
    /// payload made by `payload(from:id:)`.
    public static func decodeWithID(_ payload: String) -> (from: String, id: String?, event: ClusterEvent)? {
        guard case .object(let object)? = try? JSONValue.parse(payload),
            case .string(let from)? = object["from"], case .string(let kind)? = object["event"]
        else { return nil }
        func string(_ key: String) -> String? {
            if case .string(let value)? = object[key] { return value }
            return nil
        }
        func integer(_ key: String) -> Int64? {
            if case .int(let value)? = object[key] { return value }
            return nil
        }
        let id = string("id")
        switch kind {
        case "documents":
            guard let through = integer("through") else { return nil }
            return (from, id, .documentsChanged(through: through))
        case "account":
            guard let uid = string("uid") else { return nil }
            return (from, id, .accountChanged(uid: uid))
        case "revoked":
            guard let uid = string("uid") else { return nil }
            return (from, id, .revoked(uid: uid, sessionID: string("session"), keptSessionID: string("kept")))
        case "keys":
            return (from, id, .signingKeysRotated)
        case "rules":
            guard let version = integer("version") else { return nil }
            return (from, id, .rulesPublished(version: version))
        case "resync":
            return (from, id, .resync)
        default:
            return nil
        }
    }
}
