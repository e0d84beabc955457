import KuraAuth
import KuraCore
import KuraEngine
import KuraEngines
import KuraHTTP
import KuraHosting
import KuraMail
import KuraModel
import KuraRealtime
import KuraStore

/// Everything `kura serve` can be told. Each setting has one dotted key used by the config file (JSON, nested
/// objects allowed), the environment (`KURA_` + the key in upper snake case) and, for the common ones, a flag.
/// Precedence: flag > environment > file > default. docs/configuration.md lists every key.
public struct KuraConfiguration: Sendable {
    public var http = HTTPServerConfiguration()
    /// Directory holding the admin key, databases and rules; created if missing.
    public var dataDirectory = "./kura_data"
    public var logLevel = LogLevel.info
    /// The document database: its engine, change log, cache and composite-index policy (`store.*`, `indexes.*`).
    public var store = StoreConfiguration()
    var pages = PageLimits()
    var loopCaches = LoopCacheLimits()
    /// What one query may ask for and cost (`query.*`).
    var queries = QueryLimits()
    /// How often `<data>/kura.rules` is checked for changes, in seconds; 0 turns the polling off.
    public var rulesReloadInterval = 1.0
    /// Rules versions published through the API that `<data>/rules-history/` keeps for rollback; 0 keeps none.
    public var rulesKeepVersions = 20
    /// With several nodes on one database: how often each node reads the change log and the shared rules' version
    /// without being notified (the fallback for a lost notification), in seconds.
    public var clusterPollInterval = 0.5
    /// With several nodes on one database: how long a revocation (or an account change) waits for every other live
    /// node to confirm it applied it before answering anyway, in seconds.
    public var clusterRevocationWait = 2.0
    public var auth = AuthConfiguration()
    public var mail = MailConfiguration()
    /// Realtime listeners: heartbeats, queues and limits.
    public var realtime = RealtimeConfiguration()
    /// The base URL mail links point at; default `http://<host>:<port>`.
    public var publicURL: String?
    /// The name mails use for the app.
    public var appName = "Kura"
    /// Static hosting of a directory (`--public DIR`); off when `hosting.root` is unset.
    public var hosting = HostingConfiguration()
    /// Other backends' wire protocols Kura also speaks (`compat.*`): Firebase Auth's REST API.
    public var compat = CompatConfiguration()
    /// `GET /metrics` (`metrics.*`): on or off, the scrape token, this node's name.
    public var metrics = MetricsConfiguration()
    /// `kura serve --dev` (`applyDevelopmentMode()`): allows what only a developer's machine should, such as the
    /// Firebase Auth emulator's "delete every account".
    public var developmentMode = false

    public init() {}

    /// One configurable setting.
    public struct Setting: Sendable {
        public let key: String
        public let help: String
        /// The environment variable that sets it (see `environmentName(for:)`), unless the setting names its own.
        public let environmentName: String
        let apply: @Sendable (inout KuraConfiguration, String) throws -> Void

        init(
            key: String, environment: String? = nil, help: String,
            apply: @escaping @Sendable (inout KuraConfiguration, String) throws -> Void
        ) {
            self.key = key
            self.help = help
            self.environmentName = environment ?? Self.environmentName(for: key)
            self.apply = apply
        }

        /// `KURA_` and the key in upper snake case, an acronym being one word: `http.maxBodyBytes` →
        /// `KURA_HTTP_MAX_BODY_BYTES`, `auth.publicURL` → `KURA_AUTH_PUBLIC_URL`.
        public static func environmentName(for key: String) -> String {
            var out = "KURA_"
            let characters = Array(key)
            for (position, c) in characters.enumerated() {
                if c == "." {
                    out.append("_")
                    continue
                }
                if c.isUppercase, position > 0 {
                    let previous = characters[position - 1]
                    let next = position + 1 < characters.count ? characters[position + 1] : nil
                    // A word starts at an upper-case letter after a lower-case one or a digit (`maxBody`), or at
                    // the last capital of an acronym that a lower-case word follows (`HTTPServer` → HTTP_SERVER).
                    let startsWord =
                        previous.isLowercase || previous.isNumber
                        || (previous.isUppercase && next?.isLowercase == true)
                    if startsWord && previous != "." { out.append("_") }
                }
                out.append(contentsOf: c.uppercased())
            }
            return out
        }
    }

    /// Every setting, in the order `kura --help` lists them: the server's own, and each engine's own settings
    /// (`NodeEngine.settings`, declared in the engine's target) after the `store.*` settings every engine honours.
    public static let settings: [Setting] = {
        var settings = serverSettings
        let afterStore = settings.lastIndex { $0.key.hasPrefix("store.") }.map { $0 + 1 } ?? settings.endIndex
        settings.insert(contentsOf: StoreEngines.settings.map { Setting($0) }, at: afterStore)
        return settings
    }()

    /// The settings the server itself declares.
    private static let serverSettings: [Setting] = [
        Setting(key: "host", help: "address to listen on (default 127.0.0.1)") { $0.http.host = $1 },
        Setting(key: "port", help: "TCP port; 0 picks a free one (default 8090)") {
            $0.http.port = try integer($1, "port", 0...65535)
        },
        Setting(key: "data", help: "data directory (default ./kura_data)") { $0.dataDirectory = $1 },
        Setting(key: "logLevel", help: "debug, info (with access log), warn or error (default info)") {
            guard let level = LogLevel(name: $1) else { throw ConfigurationError("logLevel: unknown level '\($1)'") }
            $0.logLevel = level
        },
        Setting(key: "store.engine", help: "where documents are stored: \(StoreEngines.names) (default sqlite)") {
            $0.store.engine = try StoreEngines.named($1).name
        },
        Setting(key: "store.changeRetentionSeconds", help: "how long the change log keeps entries (default 86400)") {
            $0.store.changeRetentionSeconds = Int64(try integer($1, "store.changeRetentionSeconds", 60...31_536_000))
        },
        Setting(key: "store.cacheBytes", help: "memory for hot documents served from RAM (default 67108864)") {
            $0.store.cacheBytes = try integer($1, "store.cacheBytes", 0...(1 << 40))
        },
        Setting(
            key: "docs.defaultPageSize", help: "documents per page when a list or query gives no limit (default 100)"
        ) {
            $0.pages.defaultPageSize = try integer($1, "docs.defaultPageSize", 1...100_000)
        },
        Setting(key: "docs.maxPageSize", help: "largest limit a list or query may ask for (default 1000)") {
            $0.pages.maxPageSize = try integer($1, "docs.maxPageSize", 1...100_000)
        },
        Setting(
            key: "indexes.maxScanRows",
            help: "rows a query may examine and not return before it needs a composite index; 0: any (default 10000)"
        ) {
            $0.store.maxScanRows = try integer($1, "indexes.maxScanRows", 0...1_000_000_000)
        },
        Setting(
            key: "indexes.autoCreate",
            help: "build the composite index a query needs instead of failing it (default false)"
        ) {
            $0.store.autoCreateIndexes = try boolean($1, "indexes.autoCreate")
        },
        Setting(
            key: "indexes.buildStepMilliseconds",
            help: "how long one step of a composite index build holds the SQLite writer, roughly (default 5)"
        ) {
            $0.store.indexBuildStepMilliseconds = try integer($1, "indexes.buildStepMilliseconds", 1...10_000)
        },
        Setting(
            key: "query.maxDisjunctionValues",
            help: "values an in, not-in or array-contains-any filter may list, at most 30 (default 30)"
        ) {
            $0.queries.maxDisjunctionValues = try integer($1, "query.maxDisjunctionValues", 1...30)
        },
        Setting(
            key: "query.maxFilterDisjunctions",
            help: "disjunctions in disjunctive normal form a query with or filters may have (default 30)"
        ) {
            $0.queries.maxFilterDisjunctions = try integer($1, "query.maxFilterDisjunctions", 1...1000)
        },
        Setting(
            key: "query.maxAggregations", help: "aggregations (aliases) one aggregation query may ask for (default 5)"
        ) {
            $0.queries.maxAggregations = try integer($1, "query.maxAggregations", 1...100)
        },
        Setting(key: "query.maxFilterValueBytes", help: "JSON bytes of one filter value (default 1500)") {
            $0.queries.maxFilterValueBytes = try integer($1, "query.maxFilterValueBytes", 1...(1 << 30))
        },
        Setting(key: "query.maxFilterBytes", help: "JSON bytes of all of a query's filter values (default 16384)") {
            $0.queries.maxFilterBytes = try integer($1, "query.maxFilterBytes", 1...(1 << 30))
        },
        Setting(
            key: "query.maxWork",
            help: "work units a non-admin query may spend, 429 past it; 0: any (default 1000000)"
        ) {
            $0.queries.maxWork = Int64(try integer($1, "query.maxWork", 0...Int(Int64.max)))
        },
        Setting(
            key: "query.maxConcurrentPerCaller",
            help:
                "queries one caller runs at once, the rest wait their turn; 0: max(2, http.workerThreads / 4) (default 0)"
        ) {
            $0.queries.maxConcurrentPerCaller = try integer($1, "query.maxConcurrentPerCaller", 0...100_000)
        },
        Setting(
            key: "rules.reloadIntervalSeconds",
            help: "how often kura.rules is checked for changes; 0: never (default 1)"
        ) {
            guard let seconds = Double($1.trimmingSpaces()), seconds >= 0, seconds <= 86_400 else {
                throw ConfigurationError(
                    "rules.reloadIntervalSeconds: expected a number of seconds in 0...86400, got '\($1)'")
            }
            $0.rulesReloadInterval = seconds
        },
        Setting(
            key: "rules.keepVersions",
            help: "rules versions published through the API kept for rollback; 0: none (default 20)"
        ) {
            $0.rulesKeepVersions = try integer($1, "rules.keepVersions", 0...1000)
        },
        Setting(
            key: "cluster.pollMilliseconds",
            help: "several nodes: how often each reads the change log and rules version unnotified (default 500)"
        ) {
            $0.clusterPollInterval = Double(try integer($1, "cluster.pollMilliseconds", 10...60_000)) / 1000
        },
        Setting(
            key: "cluster.revocationWaitMilliseconds",
            help: "several nodes: how long a revocation waits for the other nodes to apply it (default 2000)"
        ) {
            $0.clusterRevocationWait =
                Double(try integer($1, "cluster.revocationWaitMilliseconds", 1...60_000)) / 1000
        },
        Setting(
            key: "rules.rememberedReadsPerLoop",
            help: "allowed reads each event loop remembers without evaluating the rules again (default 4096)"
        ) {
            $0.loopCaches.rememberedReads = try integer($1, "rules.rememberedReadsPerLoop", 1...10_000_000)
        },
        Setting(key: "auth.sendVerificationOnSignUp", help: "mail a verification link on sign-up (default true)") {
            $0.auth.sendVerificationOnSignUp = try boolean($1, "auth.sendVerificationOnSignUp")
        },
        Setting(
            key: "auth.requireVerifiedEmail",
            help: "no session and no data access until the email is verified (default false)"
        ) {
            $0.auth.requireVerifiedEmail = try boolean($1, "auth.requireVerifiedEmail")
        },
        Setting(key: "auth.maxContinueURLBytes", help: "longest continueUrl of an action mail (default 2048)") {
            $0.auth.maxContinueURLBytes = try integer($1, "auth.maxContinueURLBytes", 1...65_536)
        },
        Setting(key: "auth.minPasswordLength", help: "shortest password accepted (default 6)") {
            $0.auth.minPasswordLength = try integer($1, "auth.minPasswordLength", 1...4096)
        },
        Setting(key: "auth.idTokenLifetimeSeconds", help: "ID token lifetime (default 3600)") {
            $0.auth.idTokenLifetime = Int64(try integer($1, "auth.idTokenLifetimeSeconds", 1...86_400))
        },
        Setting(
            key: "auth.recentLoginSeconds",
            help: "password/email changes and deletion need a sign-in this recent (default 300)"
        ) {
            $0.auth.recentLoginWindow = Int64(try integer($1, "auth.recentLoginSeconds", 0...86_400))
        },
        Setting(key: "auth.rateLimits", help: "rate-limit sign-in, sign-up, reset and verification (default true)") {
            $0.auth.rateLimits.enabled = try boolean($1, "auth.rateLimits")
        },
        Setting(key: "auth.passwordOpsLimit", help: "argon2id passes (default libsodium INTERACTIVE: 2)") {
            $0.auth.passwordOpsLimit = UInt64(try integer($1, "auth.passwordOpsLimit", 1...100))
        },
        Setting(key: "auth.passwordMemLimit", help: "argon2id memory in bytes (default INTERACTIVE: 67108864)") {
            $0.auth.passwordMemLimit = try integer($1, "auth.passwordMemLimit", 8192...(1 << 32))
        },
        Setting(
            key: "auth.passwordHashConcurrency",
            help: "password hashes computed at once, each holding auth.passwordMemLimit; 0: cores (default 0)"
        ) {
            $0.auth.passwordHashConcurrency = try integer($1, "auth.passwordHashConcurrency", 0...1024)
        },
        Setting(
            key: "auth.argon2MaxMemoryKiB",
            help: "largest argon2id m= (KiB) a stored or imported password hash may have (default 1048576: 1 GiB)"
        ) {
            $0.auth.argon2Bounds.maxMemoryKiB = UInt64(try integer($1, "auth.argon2MaxMemoryKiB", 8...((1 << 32) - 1)))
        },
        Setting(
            key: "auth.argon2MaxIterations",
            help: "largest argon2id t= a stored or imported password hash may have (default 10)"
        ) {
            $0.auth.argon2Bounds.maxIterations = UInt64(try integer($1, "auth.argon2MaxIterations", 1...1000))
        },
        Setting(
            key: "auth.argon2MaxParallelism",
            help: "largest argon2id p= a stored or imported password hash may have (default 16)"
        ) {
            $0.auth.argon2Bounds.maxParallelism = UInt64(try integer($1, "auth.argon2MaxParallelism", 1...255))
        },
        Setting(
            key: "auth.refreshTokenReuseGraceSeconds",
            help: "how long the refresh token spent last still works, for retries; 0: never (default 30)"
        ) {
            $0.auth.refreshTokenReuseGrace = Double(try integer($1, "auth.refreshTokenReuseGraceSeconds", 0...3600))
        },
        Setting(key: "auth.tokenCacheEntries", help: "verified ID tokens kept in memory (default 10000)") {
            $0.auth.tokenCacheCapacity = try integer($1, "auth.tokenCacheEntries", 1...10_000_000)
        },
        Setting(key: "auth.accountCacheEntries", help: "accounts kept in memory (default 100000)") {
            $0.auth.accountCacheCapacity = try integer($1, "auth.accountCacheEntries", 1...100_000_000)
        },
        Setting(
            key: "auth.callersPerLoop", help: "Authorization values each event loop keeps verified (default 1024)"
        ) {
            $0.loopCaches.callers = try integer($1, "auth.callersPerLoop", 1...10_000_000)
        },
        Setting(
            key: "auth.rateLimitBuckets",
            help: "clients (and accounts) each rate limiter tracks before dropping idle ones (default 100000)"
        ) {
            $0.auth.rateLimits.maxBuckets = try integer($1, "auth.rateLimitBuckets", 1...100_000_000)
        },
        Setting(key: "auth.publicURL", help: "base URL of mail links (default http://HOST:PORT)") { $0.publicURL = $1 },
        Setting(key: "auth.appName", help: "app name used in mails (default Kura)") { $0.appName = $1 },
        Setting(key: "smtp.url", help: "smtp://host:port or smtps://host:port; unset keeps mail in the outbox") {
            $0.mail.smtp = SMTPConfiguration(
                url: $1, username: $0.mail.smtp?.username, password: $0.mail.smtp?.password)
        },
        Setting(key: "smtp.username", help: "SMTP AUTH user (set smtp.url first in files; any order elsewhere)") {
            $0.mail.smtp = $0.mail.smtp ?? SMTPConfiguration(url: "")
            $0.mail.smtp?.username = $1
        },
        Setting(key: "smtp.password", help: "SMTP AUTH password") {
            $0.mail.smtp = $0.mail.smtp ?? SMTPConfiguration(url: "")
            $0.mail.smtp?.password = $1
        },
        Setting(key: "smtp.passwordFile", help: "file whose first line is the SMTP AUTH password") {
            $0.mail.smtp = $0.mail.smtp ?? SMTPConfiguration(url: "")
            $0.mail.smtp?.password = try secret(fromFile: $1, "smtp.passwordFile")
        },
        Setting(key: "smtp.startTLS", environment: "KURA_SMTP_STARTTLS", help: "required, optional (default) or none") {
            guard let mode = SMTPConfiguration.StartTLS(rawValue: $1) else {
                throw ConfigurationError("smtp.startTLS: use required, optional or none")
            }
            $0.mail.smtp = $0.mail.smtp ?? SMTPConfiguration(url: "")
            $0.mail.smtp?.startTLS = mode
        },
        Setting(key: "smtp.from", help: "sender, e.g. 'My App <noreply@example.com>'") { $0.mail.from = $1 },
        Setting(
            key: "mail.retentionSeconds",
            help: "how long sent, held and failed mails stay in the outbox; 0: for good (default 604800)"
        ) {
            $0.mail.retention = .seconds(try integer($1, "mail.retentionSeconds", 0...315_360_000))
        },
        Setting(key: "http.eventLoops", help: "event loop threads (default: one per core)") {
            $0.http.eventLoops = try integer($1, "http.eventLoops", 1...256)
        },
        Setting(key: "http.workerThreads", help: "worker pool threads for blocking work (default max(4, 2 x cores))") {
            $0.http.workerThreads = try integer($1, "http.workerThreads", 1...1024)
        },
        Setting(key: "http.workerQueueLimit", help: "jobs queued on the worker pool before 503 (default 4096)") {
            $0.http.workerQueueLimit = try integer($1, "http.workerQueueLimit", 1...10_000_000)
        },
        Setting(key: "http.maxHeaderBytes", help: "request line + headers limit, 431 past it (default 16384)") {
            $0.http.limits.maxHeaderBytes = try integer($1, "http.maxHeaderBytes", 256...1_048_576)
        },
        Setting(key: "http.maxBodyBytes", help: "request body limit, 413 past it (default 10485760)") {
            $0.http.limits.maxBodyBytes = try integer($1, "http.maxBodyBytes", 0...Int(Int32.max))
        },
        Setting(key: "http.requestTimeoutMs", help: "time to receive a whole request, 408 past it (default 30000)") {
            $0.http.requestTimeoutMs = UInt64(try integer($1, "http.requestTimeoutMs", 10...86_400_000))
        },
        Setting(key: "http.idleTimeoutMs", help: "idle keep-alive connections close after this (default 60000)") {
            $0.http.idleTimeoutMs = UInt64(try integer($1, "http.idleTimeoutMs", 10...86_400_000))
        },
        Setting(key: "http.maxConnections", help: "open connections at once, 503 past it (default 10000)") {
            $0.http.maxConnections = try integer($1, "http.maxConnections", 1...1_000_000)
        },
        Setting(key: "http.maxPipelinedRequests", help: "requests in flight per connection (default 64)") {
            $0.http.maxPipelinedRequests = try integer($1, "http.maxPipelinedRequests", 1...10_000)
        },
        Setting(key: "http.shutdownGraceMs", help: "time in-flight requests get on shutdown (default 10000)") {
            $0.http.shutdownGraceMs = UInt64(try integer($1, "http.shutdownGraceMs", 0...3_600_000))
        },
        Setting(
            key: "http.trustedProxies",
            help: "reverse proxies (CIDR blocks) whose forwarding header names the client; empty: none (default)"
        ) {
            do throws(TrustedProxiesError) { $0.http.trustedProxies.ranges = try TrustedProxies.parseRanges($1) } catch
            {
                throw ConfigurationError("http.trustedProxies: \(error.description)")
            }
        },
        Setting(
            key: "http.forwardedHeader",
            help: "the header trusted proxies name the client in: X-Forwarded-For (default) or Forwarded"
        ) {
            let name = $1.trimmingSpaces()
            guard !name.isEmpty,
                name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && !"()<>@,;:\\\"/[]?={}".utf8.contains($0) })
            else {
                throw ConfigurationError("http.forwardedHeader: a header name, such as X-Forwarded-For or Forwarded")
            }
            $0.http.trustedProxies.header = name
        },
        Setting(key: "cors.origins", help: "origins whose pages may call Kura: * or a comma-separated list (default *)")
        {
            do throws(CORSPolicyError) { $0.http.cors.origins = try CORSPolicy.parseOrigins($1) } catch {
                throw ConfigurationError("cors.origins: \(error.description)")
            }
        },
        Setting(key: "cors.maxAgeSeconds", help: "how long browsers may reuse a preflight answer (default 3600)") {
            $0.http.cors.maxAgeSeconds = try integer($1, "cors.maxAgeSeconds", 0...86_400)
        },
        Setting(key: "hosting.root", help: "directory whose files are served outside Kura's own paths (--public)") {
            $0.hosting.root = $1.isEmpty ? nil : $1
        },
        Setting(key: "hosting.spaFallback", help: "answer page navigations to missing paths with index.html (false)") {
            $0.hosting.spaFallback = try boolean($1, "hosting.spaFallback")
        },
        Setting(key: "hosting.immutablePrefix", help: "path prefix of files cached for a year (default /assets/)") {
            guard $1.isEmpty || $1.hasPrefix("/") else {
                throw ConfigurationError("hosting.immutablePrefix: a path starting with /, or empty for none")
            }
            $0.hosting.immutablePrefix = $1
        },
        Setting(key: "hosting.cacheControl", help: "Cache-Control of files that are not HTML (default no-cache)") {
            guard !$1.contains(where: { $0 == "\r" || $0 == "\n" }) else {
                throw ConfigurationError("hosting.cacheControl: one line of text")
            }
            $0.hosting.cacheControl = $1
        },
        Setting(
            key: "hosting.revalidateMilliseconds",
            help: "how long a file is served from memory unchecked (default 1000)"
        ) {
            $0.hosting.revalidateMilliseconds = try integer($1, "hosting.revalidateMilliseconds", 0...86_400_000)
        },
        Setting(key: "hosting.cacheBytes", help: "memory for hosted files and their gzip encodings (default 67108864)")
        {
            $0.hosting.cacheBytes = try integer($1, "hosting.cacheBytes", 0...(1 << 40))
        },
        Setting(key: "hosting.cacheEntries", help: "paths the hosting cache remembers (default 10000)") {
            $0.hosting.cacheEntries = try integer($1, "hosting.cacheEntries", 1...10_000_000)
        },
        Setting(
            key: "hosting.maxCachedFileBytes", help: "larger files are read per request, uncompressed (default 4194304)"
        ) {
            $0.hosting.maxCachedFileBytes = try integer($1, "hosting.maxCachedFileBytes", 0...(1 << 40))
        },
        Setting(key: "compat.firebaseAuth", help: "serve Firebase Auth's REST API (emulator protocol) (default false)")
        {
            $0.compat.firebaseAuth = try boolean($1, "compat.firebaseAuth")
        },
        Setting(key: "compat.firebaseProjectId", help: "the Firebase project id apps use; ID tokens' aud (no default)")
        {
            $0.compat.firebaseProjectId = $1.trimmingSpaces()
        },
        Setting(
            key: "compat.ownerAddresses",
            help: "addresses besides loopback whose 'Bearer owner' is the administrator, comma-separated (default none)"
        ) {
            $0.compat.ownerAddresses = $1.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        },
        Setting(key: "realtime.heartbeatSeconds", help: "heartbeat interval of listen streams (default 15)") {
            $0.realtime.heartbeatSeconds = try seconds($1, "realtime.heartbeatSeconds", 0.01...3600)
        },
        Setting(
            key: "realtime.maxQueuedBytes", help: "bytes queued for a slow listener before overflow (default 4194304)"
        ) {
            $0.realtime.maxQueuedBytes = try integer($1, "realtime.maxQueuedBytes", 1024...(1 << 34))
        },
        Setting(key: "realtime.maxTargetsPerConnection", help: "listeners one stream may carry (default 100)") {
            $0.realtime.maxTargetsPerConnection = try integer($1, "realtime.maxTargetsPerConnection", 1...100_000)
        },
        Setting(key: "realtime.maxConnections", help: "listen streams open at once, 503 past it (default 10000)") {
            $0.realtime.maxConnections = try integer($1, "realtime.maxConnections", 1...1_000_000)
        },
        Setting(key: "realtime.authCheckSeconds", help: "how often stream credentials are re-checked (default 60)") {
            $0.realtime.authCheckSeconds = try seconds($1, "realtime.authCheckSeconds", 0.01...86_400)
        },
        Setting(key: "realtime.pollMilliseconds", help: "change-log poll for other processes' writes (default 250)") {
            $0.realtime.pollMilliseconds = try integer($1, "realtime.pollMilliseconds", 5...60_000)
        },
        Setting(key: "realtime.maxReplayChanges", help: "changes replayed on resume before reset (default 10000)") {
            $0.realtime.maxReplayChanges = try integer($1, "realtime.maxReplayChanges", 1...10_000_000)
        },
        Setting(key: "metrics.enabled", help: "count requests and serve GET /metrics (default true)") {
            $0.metrics.enabled = try boolean($1, "metrics.enabled")
            $0.http.metrics = $0.metrics.enabled
        },
        Setting(key: "metrics.token", help: "bearer token GET /metrics accepts besides administrators (default none)") {
            $0.metrics.token = try MetricsConfiguration.checkedToken($1, "metrics.token")
        },
        Setting(key: "metrics.tokenFile", help: "file whose first line is the metrics token") {
            $0.metrics.token = try MetricsConfiguration.checkedToken(
                secret(fromFile: $1, "metrics.tokenFile"), "metrics.tokenFile")
        },
        Setting(key: "metrics.node", help: "this node's name in the kura_node label (default HOSTNAME:PORT)") {
            $0.metrics.node = $1.trimmingSpaces()
        },
        Setting(key: "metrics.historySeconds", help: "request history GET /api/admin/traffic keeps (default 900)") {
            $0.metrics.historySeconds = try integer($1, "metrics.historySeconds", 60...86_400)
        },
    ]

    /// Applies `key = value`; unknown keys are an error so that typos do not pass silently.
    public mutating func set(_ key: String, _ value: String) throws {
        guard let setting = Self.settings.first(where: { $0.key == key }) else {
            throw ConfigurationError("unknown setting '\(key)'")
        }
        try setting.apply(&self, value)
    }

    /// Applies every `KURA_*` variable that names a setting.
    public mutating func applyEnvironment(_ environment: [String: String]) throws {
        for setting in Self.settings {
            if let value = environment[setting.environmentName] {
                do { try setting.apply(&self, value) } catch let error as ConfigurationError {
                    throw ConfigurationError("\(setting.environmentName): \(error.message)")
                }
            }
        }
    }

    private static func boolean(_ text: String, _ key: String) throws -> Bool {
        switch text.lowercased() {
        case "true", "1", "yes", "on": return true
        case "false", "0", "no", "off": return false
        default: throw ConfigurationError("\(key): expected true or false, got '\(text)'")
        }
    }

    private static func seconds(_ text: String, _ key: String, _ range: ClosedRange<Double>) throws -> Double {
        guard let value = Double(text.trimmingSpaces()), range.contains(value) else {
            throw ConfigurationError(
                "\(key): expected a number of seconds in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return value
    }

    /// Parsed as the engines' integer settings are (`SettingText`, KuraEngine), so every message reads the same.
    private static func integer(_ text: String, _ key: String, _ range: ClosedRange<Int>) throws -> Int {
        do throws(SettingError) { return try SettingText(key: key, text: text).integer(in: range) } catch {
            throw ConfigurationError(error.message)
        }
    }
}

/// A configuration problem, reported to the user as is.
public struct ConfigurationError: Error, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
