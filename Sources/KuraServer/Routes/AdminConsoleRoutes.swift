import Foundation
import KuraCore
import KuraEngine
import KuraHTTP
import KuraModel
import KuraRealtime
import KuraStore
import Synchronization

/// Admin endpoints the console (`/_/`) needs beyond users, rules, indexes and mail, open to scripts alike:
/// `GET /api/admin/collections` (the collection tree), `GET /api/admin/status` (what the server is doing, the
/// nodes sharing its database) and `GET /api/admin/traffic` (requests per interval, AdminConsoleRoutes+Traffic.swift).
/// For the admin key or users with the `admin` claim (`CallerPolicy.admin`).
struct AdminConsoleRoutes {
    let database: any EngineDocumentStore
    let store: CachedDocumentStore
    let realtime: ListenerRegistry
    let connections: ConnectionGauge
    let configuration: KuraConfiguration
    /// The other nodes on the engine, for the status's `nodes`.
    let cluster: any ClusterChannel
    /// The bytes the engine's databases take (the status's `dataBytes`).
    let storeSize: @Sendable () throws -> Int64

    /// When this process started, for the status's uptime.
    static let started = MonotonicClock.nanoseconds()

    func register(on router: Router<KuraContext>) {
        let forAdmins = callers.routes(.admin, on: router)
        _ = Self.started  // the clock starts with the routes, not at the first status request
        let database = self.database
        forAdmins.get("/api/admin/collections") { request, context in
            try context.offload {
                let parent = try request.query("parent").flatMap { $0.isEmpty ? nil : try DocumentPath($0) }
                let size = try Self.pageSize(request)
                var after: String? = nil
                if let token = try request.query("pageToken"), !token.isEmpty {
                    guard let bytes = Base64.decode(token, .urlSafe),
                        let path = String(validating: bytes, as: UTF8.self),
                        path.utf8.starts(with: (parent.map { $0.description + "/" } ?? "").utf8)
                    else { throw APIError.badRequest("invalid page token") }
                    after = path
                }
                guard let transfer = database as? any DocumentTransfer else {
                    throw APIError(.failedPrecondition, status: 400, message: "this engine cannot list collections")
                }
                let page = try transfer.withDocumentSnapshot { snapshot in
                    guard let catalogue = snapshot as? any CollectionSnapshot else {
                        throw APIError(
                            .failedPrecondition, status: 400, message: "this engine cannot list collections")
                    }
                    return try catalogue.collectionIDs(under: parent, after: after, limit: size)
                }
                let next: JSONValue = page.next.map { .string(Base64.encode(Array($0.utf8), .urlSafe)) } ?? .null
                return .json(
                    JSONValue.object([
                        "collectionIds": .array(page.ids.map { .string($0) }), "nextPageToken": next,
                    ]).jsonBytes)
            }
        }
        let store = self.store
        let realtime = self.realtime
        let connections = self.connections
        let configuration = self.configuration
        let cluster = self.cluster
        let storeSize = self.storeSize
        registerTraffic(on: router)
        forAdmins.get("/api/admin/status") { request, context in
            try context.offload {
                var status = JSONObject([
                    ("version", .string(KuraNode.version)),
                    ("uptimeSeconds", .int(Int64((MonotonicClock.nanoseconds() - Self.started) / 1_000_000_000))),
                    ("engine", .string(configuration.store.engine)),
                    ("connections", .int(Int64(connections.count))),
                    ("listenStreams", .int(Int64(realtime.connectionCount))),
                    ("listenTargets", .int(Int64(realtime.targetCount))),
                    ("changeLogPosition", .int(try store.latestSequence())),
                    ("changeLogOldest", .int(try store.oldestRetainedSequence())),
                    ("changeLogRetentionSeconds", .int(configuration.store.changeRetentionSeconds)),
                    ("developmentMode", .bool(configuration.developmentMode)),
                ])
                status["lastBackup"] =
                    LastBackup.read(dataDirectory: configuration.dataDirectory).map { backup in
                        .object(
                            JSONObject([
                                ("time", .string(RFC3339.format(backup.time))), ("file", .string(backup.file)),
                            ]))
                    } ?? .null
                status["dataBytes"] =
                    configuration.store.engine == "sqlite"
                    ? .int(Self.directoryBytes(configuration.dataDirectory))
                    : (try? storeSize()).map { .int($0) }
                        ?? .null
                status["nodes"] = try cluster.members().map { members in .array(members.map(Self.member)) } ?? .null
                return .json(JSONValue.object(status).jsonBytes)
            }
        }
    }

    let callers: CallerResolution

    private static func pageSize(_ request: Request) throws -> Int {
        try request.query("pageSize").map { text -> Int in
            guard let n = Int(text), (1...1000).contains(n) else {
                throw APIError.badRequest("pageSize must be an integer from 1 to 1000")
            }
            return n
        } ?? 100
    }

    /// One node of `GET /api/admin/status`'s `nodes`.
    private static func member(_ member: ClusterMember) -> JSONValue {
        .object(
            JSONObject([
                ("name", .string(member.name)), ("address", .string(member.address)),
                ("version", .string(member.version)), ("startTime", .string(RFC3339.format(member.startedMicros))),
                ("lastSeen", .string(RFC3339.format(member.seenMicros))),
                ("lastSeenSecondsAgo", .double(Double(member.seenMillisecondsAgo) / 1000)),
                ("alive", .bool(member.alive)), ("self", .bool(member.isSelf)),
            ]))
    }

    /// The bytes of the regular files directly in the data directory (the SQLite databases and their logs).
    private static func directoryBytes(_ path: String) -> Int64 {
        let files = FileManager.default
        let names = (try? files.contentsOfDirectory(atPath: path)) ?? []
        return names.reduce(Int64(0)) { total, name in
            let attributes = try? files.attributesOfItem(atPath: path + "/" + name)
            guard attributes?[.type] as? FileAttributeType == .typeRegular else { return total }
            return total + ((attributes?[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }
}

/// The HTTP server's open connections and request history, for `/api/admin/status` and `/api/admin/traffic`: the
/// routes are made before the server, which is attached once it exists.
final class ConnectionGauge: Sendable {
    private let server = Mutex<HTTPServer?>(nil)

    func attach(_ http: HTTPServer) { server.withLock { $0 = http } }

    var count: Int { server.withLock { $0?.connectionCount ?? 0 } }

    /// The requests per interval; `nil` with the metrics off (or before the server exists).
    func trafficHistory() -> TrafficHistorySnapshot? { server.withLock { $0 }?.trafficHistory() }
}

/// The last `kura backup` made of this data directory, noted in `<data>/backup.last` (`{"time","file"}`).
struct LastBackup {
    /// When it finished, in microseconds since 1970.
    var time: Int64
    /// The backup file's path.
    var file: String

    static func path(_ dataDirectory: String) -> String { dataDirectory + "/backup.last" }

    func write(dataDirectory: String) throws {
        let text = String(
            decoding: JSONValue.object(JSONObject([("time", .string(RFC3339.format(time))), ("file", .string(file))]))
                .jsonBytes, as: UTF8.self)
        try SecurityRules.writeAtomically(text, to: Self.path(dataDirectory))
    }

    /// The note, or `nil` when there is none (no backup yet) or it cannot be read.
    static func read(dataDirectory: String) -> LastBackup? {
        guard let text = try? String(contentsOfFile: path(dataDirectory), encoding: .utf8),
            case .object(let object)? = try? JSONValue.parse(text), case .string(let time)? = object["time"],
            let micros = RFC3339.parse(time), case .string(let file)? = object["file"]
        else { return nil }
        return LastBackup(time: micros, file: file)
    }
}
