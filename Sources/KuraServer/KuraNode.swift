import Foundation
import KuraAuth
import KuraCore
import KuraEngine
import KuraEngines
import KuraHTTP
import KuraHosting
import KuraMail
import KuraModel
import KuraRealtime
import KuraSQLiteEngine
import KuraStore

/// A configured Kura server: data directory, admin key, routes and the HTTP engine, wired together.
public final class KuraNode: Sendable {
    /// The version `kura --version` and `/api/health` report.
    public static let version = "0.1.0"

    public let configuration: KuraConfiguration
    public let adminKey: AdminKey
    public let logger: Logger
    public let http: HTTPServer
    /// The document database (the engine `store.engine` names) behind the in-memory cache of hot documents.
    public let store: CachedDocumentStore
    /// The engine's document database itself, closed when the server stops.
    private let documents: any EngineDocumentStore
    /// Accounts, sessions and signing keys, in the engine (`<data>/accounts.db` on SQLite).
    public let auth: AuthService
    /// The mail outbox (in the engine; `<data>/mail.db` on SQLite) and its delivery worker.
    public let mailer: Mailer
    /// The security rules in force (`<data>/kura.rules`, reloaded when it changes).
    public let rules: SecurityRules
    /// Who may read and write which documents: rule checks, for every route that serves documents.
    public let dataAccess: DataAccess
    /// Who is calling: resolves every request's `Authorization` into `KuraContext.caller` by one rule.
    public let callers: CallerResolution
    /// Realtime listeners (`/api/listen`) and the change feed that serves them.
    public let realtime: ListenerRegistry
    /// Password-reset and verification mails asked for by address (answered before the lookup).
    public let addressMails: AddressMailRequests
    /// Static hosting (`hosting.root`), if on.
    public let hosting: StaticSite?
    /// This process's hold on the data directory, released when the server stops.
    private let ownership: DataDirectoryLock
    private let publicURL: PublicURL
    private let maintenance: Maintenance
    /// Polls `<data>/kura.rules` for changes; `nil` when `rules.reloadIntervalSeconds` is 0.
    private let rulesWatcher: Maintenance?
    /// What this node tells the other nodes on its engine and hears from them (Cluster/ClusterLink.swift).
    let cluster: ClusterLink
    /// What `GET /metrics` reports; `nil` when `metrics.enabled` is off.
    let metrics: NodeMetrics?

    /// Prepares the data directory and routes; `extraRoutes` lets tests add their own.
    public init(
        configuration given: KuraConfiguration, logger: Logger? = nil,
        extraRoutes: (Router<KuraContext>) -> Void = { _ in }
    ) throws {
        // With `compat.firebaseAuth`, ID tokens are Firebase's (CompatConfiguration.swift).
        let configuration = try given.resolvingCompat()
        self.configuration = configuration
        let logger = logger ?? Logger(level: configuration.logLevel)
        self.logger = logger
        // An unknown `store.engine` stops the server before it touches the data directory.
        let engine = try StoreEngines.engine(for: configuration)
        // A public directory that is the data directory (or inside it) would serve the keys and databases: refused
        // before anything is created.
        if let root = configuration.hosting.root {
            do {
                try StaticSite.checkPlacement(root: root, dataDirectory: configuration.dataDirectory)
            } catch {
                throw ConfigurationError(error.description)
            }
        }
        try Self.prepareDataDirectory(configuration.dataDirectory, logger: logger)
        ownership = try DataDirectoryLock(dataDirectory: configuration.dataDirectory)
        // New means nothing stored yet: the document database is the first thing a server creates that holds data.
        let newDataDirectory = try !engine.holdsDocuments()
        let channel = try engine.openCluster(log: { logger.warn($0) })
        let (key, created) = try AdminKey.loadOrCreate(
            dataDirectory: configuration.dataDirectory, shared: channel.shared)
        adminKey = key
        if created {
            logger.info(
                channel.shared == nil
                    ? "created admin API key at \(key.path) (mode 0600)"
                    : "wrote the admin API key all nodes share to \(key.path) (mode 0600)")
        }
        let database = try engine.openDocuments(log: {
            $0.hasPrefix("missing index") || $0.hasPrefix("store: slow") ? logger.warn($0) : logger.info($0)
        })
        documents = database
        let indexDefinitions = try IndexDefinitions(
            dataDirectory: configuration.dataDirectory, store: database, logger: logger)
        // Every commit pokes the realtime change feed as soon as it is durable.
        let commits = ChangeSignal()
        let metrics =
            configuration.metrics.enabled
            ? NodeMetrics(node: configuration.metrics.node, engineName: configuration.store.engine) : nil
        self.metrics = metrics
        let timedDatabase: any DocumentStore =
            metrics.map {
                CommitTimingStore(base: database, latency: $0.commitLatency, failures: $0.commitFailures)
            } ?? database
        store = CachedDocumentStore(
            base: ChangeNotifyingStore(base: timedDatabase, signal: commits),
            cache: DocumentCache(capacityBytes: configuration.store.cacheBytes))
        let rules = try SecurityRules(
            dataDirectory: configuration.dataDirectory, newDataDirectory: newDataDirectory, logger: logger,
            shared: channel.shared)
        self.rules = rules
        rulesWatcher =
            configuration.rulesReloadInterval > 0
            ? Maintenance(
                name: "kura-reload", interval: configuration.rulesReloadInterval, logger: logger,
                tasks: [
                    ("reload security rules", { rules.reloadIfChanged() }),
                    ("reload index definitions", { indexDefinitions.reloadIfChanged() }),
                ])
            : nil
        if configuration.mail.smtp?.url.isEmpty == true {
            throw ConfigurationError("smtp.username/password/startTLS are set but smtp.url is not")
        }
        auth = try Self.openAuth(engine: engine, configuration: configuration, logger: logger)
        mailer = try Mailer(outbox: engine.openOutbox(), configuration: configuration.mail, logger: logger)
        let publicURL = PublicURL(
            configured: configuration.publicURL, host: configuration.http.host, port: configuration.http.port)
        self.publicURL = publicURL
        let accounts = auth.store
        let outbox = mailer
        maintenance = Maintenance(
            interval: 3600, logger: logger,
            tasks: [
                (
                    "purge expired action codes and revoked sessions",
                    { try accounts.purge(now: WallClock.nowMicros() / 1_000_000) }
                ),
                ("delete old mails from the outbox", { try outbox.purge() }),
            ])
        let continueURLs = ContinueURLPolicy(
            publicURL: publicURL, corsOrigins: configuration.http.cors.origins,
            maxLength: configuration.auth.maxContinueURLBytes)
        let accountMailer = AccountMailer(
            mailer: mailer, publicURL: publicURL, appName: configuration.appName, continueURLs: continueURLs)
        let callers = CallerResolution(
            adminKey: key, auth: auth, eventLoops: configuration.http.eventLoops,
            callersPerLoop: configuration.loopCaches.callers)
        self.callers = callers
        let access = DataAccess(
            rules: rules, store: store, auth: auth, logger: logger, eventLoops: configuration.http.eventLoops,
            loopCaches: configuration.loopCaches, queryLimits: configuration.queries)
        dataAccess = access
        let router = Router<KuraContext>()
        SystemRoutes.register(on: router, landingPage: configuration.hosting.root == nil)
        WebSDKRoutes.register(on: router)
        ConsoleRoutes.register(on: router)
        if configuration.hosting.root != nil {
            let site: StaticSite
            do {
                site = try StaticSite(
                    configuration: configuration.hosting, eventLoops: configuration.http.eventLoops,
                    dataDirectory: configuration.dataDirectory)
            } catch {
                throw ConfigurationError(error.description)
            }
            HostingRoutes(site: site).register(on: router)
            hosting = site
        } else {
            hosting = nil
        }
        let addressMails = AddressMailRequests(auth: auth, mailer: accountMailer, logger: logger)
        self.addressMails = addressMails
        let authRoutes = AuthRoutes(
            auth: auth, callers: callers, mailer: accountMailer, addressMails: addressMails)
        authRoutes.register(on: router)
        AdminUserRoutes(auth: auth, callers: callers).register(on: router)
        if configuration.compat.firebaseAuth {
            FirebaseAuthRoutes(
                auth: auth, accounts: authRoutes.accounts, adminKey: key, outbox: mailer, compat: configuration.compat,
                developmentMode: configuration.developmentMode
            ).register(on: router)
        }
        OutboxRoutes(mailer: mailer, callers: callers).register(on: router)
        RulesRoutes(
            rules: rules,
            history: RulesHistory(dataDirectory: configuration.dataDirectory, keep: configuration.rulesKeepVersions),
            callers: callers
        ).register(on: router)
        ActionPageRoutes(
            auth: auth, confirmEmail: authRoutes.confirmEmail, appName: configuration.appName,
            continueURLs: continueURLs
        ).register(on: router)
        DocumentRoutes(store: store, access: access, callers: callers, pages: configuration.pages).register(on: router)
        QueryRoutes(
            store: store, access: access, callers: callers, pages: configuration.pages, indexes: database,
            queryLimits: configuration.queries,
            concurrency: QueryConcurrency(
                perCaller: configuration.queries.maxConcurrentPerCaller, workers: configuration.http.workerThreads)
        ).register(on: router)
        IndexRoutes(indexes: database, callers: callers).register(on: router)
        SeedShapeRoutes(store: store, access: access, callers: callers, pages: configuration.pages)
            .register(on: router)
        let realtimeAccess = RealtimeAccess(access: access, callers: callers)
        // With other nodes writing, a follower forgets the cached documents they change; the feed reads the log
        // through it, so a listener never hears of a write before this node's cache forgot the older document.
        let cached = store
        let timings = logger.isEnabled(.debug) ? StageTimings() : nil
        let follower =
            channel.shared == nil
            ? nil
            : try ChangeLogFollower(
                store: store, cache: store.cache, signal: commits, pollSeconds: configuration.clusterPollInterval,
                logger: logger, timings: timings)
        let realtime = ListenerRegistry(
            store: follower.map { FollowingStore(base: cached, follower: $0) } ?? cached, access: realtimeAccess,
            configuration: configuration.realtime, signal: commits, logger: logger, timings: timings)
        self.realtime = realtime
        cluster = ClusterLink(
            channel: channel, auth: auth, rules: rules, realtime: realtime, follower: follower,
            pollSeconds: configuration.clusterPollInterval,
            revocationWait: .milliseconds(Int64(configuration.clusterRevocationWait * 1000)), logger: logger)
        // Revocation is immediate on every channel: REST through the token cache, listen streams here.
        auth.observeRevocations { revocation in
            realtime.revoke { RealtimeAccess.isRevoked($0, by: revocation) }
        }
        ListenRoutes(
            registry: realtime, access: realtimeAccess, callers: callers, pages: configuration.pages,
            queryLimits: configuration.queries
        ).register(on: router)
        let connections = ConnectionGauge()
        AdminConsoleRoutes(
            database: database, store: store, realtime: realtime, connections: connections,
            configuration: configuration, cluster: channel, storeSize: { try engine.storeSizeBytes() },
            callers: callers
        ).register(on: router)
        if let metrics {
            MetricsRoutes(metrics: metrics, callers: callers, token: configuration.metrics.token).register(on: router)
        }
        extraRoutes(router)
        var httpConfiguration = configuration.http
        httpConfiguration.metrics = configuration.metrics.enabled
        httpConfiguration.metricsHistoryIntervals = (configuration.metrics.historySeconds + 9) / 10
        http = HTTPServer(configuration: httpConfiguration, responder: router, logger: logger)
        connections.attach(http)
        metrics?.attach(
            http,
            NodeMetrics.Sources(
                store: store, realtime: realtime, auth: auth, mailer: mailer, storeSize: { try engine.storeSizeBytes() }
            ))
    }

    /// Creates the data directory readable by its owner only (it holds password hashes and keys); warns when an
    /// existing one is open to other users.
    static func prepareDataDirectory(_ path: String, logger: Logger) throws {
        let files = FileManager.default
        if files.fileExists(atPath: path) {
            let mode = (try? files.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0
            if mode & 0o077 != 0 {
                logger.warn(
                    "data directory \(path) is accessible to other users (mode \(String(mode, radix: 8))); chmod 700 it"
                )
            }
            return
        }
        do {
            try files.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ConfigurationError("cannot create data directory \(path): \(error)")
        }
    }

    /// The accounts (behind the in-memory account cache) and signing keys of `engine`.
    static func openAuth(
        engine: any NodeEngine, configuration: KuraConfiguration, logger: Logger? = nil
    ) throws -> AuthService {
        do {
            return try AuthService(
                store: CachedAccountStore(
                    base: engine.openAccounts(), capacity: configuration.auth.accountCacheCapacity),
                keys: engine.openSigningKeys(), configuration: configuration.auth,
                log: { message in logger?.warn(message) })
        } catch let problem as Argon2HashProblem {
            throw ConfigurationError(problem.message)
        }
    }

    /// For the one-shot commands that may run beside a server (`kura backup`, `kura export`, `kura admin …`): the
    /// SQLite connections this process opens from now on never delete a database's `-wal` and `-shm` files, even
    /// when they believe they closed it last (docs/architecture.md, "Database files"). Call before the command.
    public static func keepDatabaseSideFiles() {
        SQLiteEngine.keepWALFiles()
    }

    /// `kura backup DIRECTORY`: a new data directory holding a consistent copy of every database (documents,
    /// accounts, the outbox) and the admin key, signing keys, rules and index definitions, safe while a server is
    /// writing (DataDirectoryBackup.swift). On PostgreSQL it refuses and names pg_dump. Returns what was written.
    @discardableResult
    public static func backup(
        configuration: KuraConfiguration, to directory: String, logger: Logger? = nil
    ) throws -> String {
        let engine = try StoreEngines.engine(for: configuration)
        try CommandFilePaths.refuseInsideDataDirectory(
            directory, dataDirectory: configuration.dataDirectory, role: "backup directory")
        guard engine is SQLiteEngine else {
            try engine.backupDocuments(to: directory)
            return engine.documentsLocation
        }
        let summary = try DataDirectoryBackup.run(
            dataDirectory: configuration.dataDirectory, to: directory,
            logger: logger ?? Logger(level: configuration.logLevel))
        // Remembered for `GET /api/admin/status`; the backup stands whether or not this note could be written.
        try? LastBackup(time: WallClock.nowMicros(), file: (directory as NSString).standardizingPath)
            .write(dataDirectory: configuration.dataDirectory)
        return "\(summary.files.count) files (\(summary.bytes) bytes) from \(configuration.dataDirectory) in "
            + String(format: "%.1f s", summary.seconds)
    }

    /// `kura admin create-user`: a verified account, optionally with the `admin` claim, made directly in the data
    /// directory (works while a server is running: the account database is shared through SQLite).
    public static func createUser(
        configuration: KuraConfiguration, email: String, password: String, admin: Bool
    ) throws -> AuthUser {
        try prepareDataDirectory(configuration.dataDirectory, logger: Logger(level: .warn))
        let auth = try openAuth(engine: StoreEngines.engine(for: configuration), configuration: configuration)
        return try auth.createUser(email: email, password: password, admin: admin)
    }

    /// `kura admin rotate-keys`: a new ID-token signing key in the data directory; returns its `kid`. Retired keys
    /// stay in the JWKS and keep verifying the tokens they signed.
    public static func rotateSigningKey(configuration: KuraConfiguration) throws -> String {
        try prepareDataDirectory(configuration.dataDirectory, logger: Logger(level: .warn))
        // Running nodes on a shared engine hear of it from the engine (PostgreSQL: `NOTIFY kura_signing_keys` in
        // the rotation's transaction) and read the keys again.
        let auth = try openAuth(engine: StoreEngines.engine(for: configuration), configuration: configuration)
        try auth.rotateSigningKey()
        guard case .object(let jwks) = auth.jwks(), case .array(let keys) = jwks["keys"] ?? .null,
            case .object(let first) = keys.first ?? .null, case .string(let kid) = first["kid"] ?? .null
        else { return "?" }
        return kid
    }

    /// Starts listening; returns once the port is bound.
    public func start() throws {
        try http.start()
        publicURL.bound(port: http.port)
        maintenance.start()
        rulesWatcher?.start()
        realtime.start()
        let host = configuration.http.host
        let wildcard = host.isEmpty || host == "0.0.0.0" || host == "::"
        let address =
            "\(wildcard ? ProcessInfo.processInfo.hostName : host.contains(":") ? "[\(host)]" : host):\(http.port)"
        cluster.channel.announce(address: address, version: KuraNode.version)
        cluster.start()
        logger.info(
            "Kura \(KuraNode.version) listening on http://\(configuration.http.host):\(http.port) "
                + "(data: \(configuration.dataDirectory), admin key: \(adminKey.path))")
    }

    /// The bound port.
    public var port: Int { http.port }

    /// Graceful shutdown; returns when every connection is closed.
    public func stop() {
        http.shutdown()
        wait()
    }

    /// Blocks until the server has stopped (after `stop()`, SIGINT or SIGTERM), then stops mail delivery and
    /// maintenance, and gives up the data directory.
    public func wait() {
        http.wait()
        mailer.shutdown()
        maintenance.stop()
        rulesWatcher?.stop()
        cluster.stop()
        realtime.shutdown()
        documents.close()
        ownership.release()
    }
}
