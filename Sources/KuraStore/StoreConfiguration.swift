/// The document database's settings: which engine holds the data (`store.engine`) and what every engine honours
/// (`store.*`, `indexes.*`; docs/configuration.md). The accounts and the outbox have settings of their own.
public struct StoreConfiguration: Sendable {
    /// The engine, by the name `store.engine` gives (`SQLiteEngine.name`: `sqlite`, the default).
    public var engine = "sqlite"
    /// Change-log entries older than this are pruned (realtime listeners resume from the log).
    public var changeRetentionSeconds: Int64 = 86_400
    /// Memory for hot documents served without touching the database (0 turns the cache off).
    public var cacheBytes = 64 << 20
    /// Rows a query that a composite index would serve may examine without returning them before it fails with
    /// the index to declare (0: never).
    public var maxScanRows = 10_000
    /// Create the composite index such a query needs instead of failing it (development).
    public var autoCreateIndexes = false
    /// How long the work of one composite index build step may take, roughly (SQLite: a write that arrives during a
    /// step waits for it, so this bounds what a build adds to a write's latency; smaller steps make the build slower).
    public var indexBuildStepMilliseconds = 5
    /// The SQLite engine's own knobs (`store.checkpointPages`, `store.maxWALBytes`, `store.mmapBytes`).
    public var sqlite = SQLiteSettings()
    /// The PostgreSQL engine's own knobs (`store.url`, `store.poolSize`, `store.preparedStatements`,
    /// `store.tcpTimeoutSeconds`).
    public var postgres = PostgresSettings()

    /// Settings only the SQLite engine reads.
    public struct SQLiteSettings: Sendable {
        /// WAL pages written between two checkpoints (run off the writer thread).
        public var checkpointPages = 1000
        /// The WAL's size bound in bytes (the writer waits for a checkpoint past it).
        public var maxWALBytes = 64 << 20
        /// Bytes of the database file each read connection maps into memory (0: read with `pread`).
        public var mmapBytes = 256 << 20

        /// The defaults.
        public init() {}
    }

    /// The defaults.
    public init() {}
}

extension StoreConfiguration {
    /// Settings only the PostgreSQL engine reads (docs/scaling.md).
    public struct PostgresSettings: Sendable {
        /// A libpq connection string: a `postgresql://` URL (multi-host with `target_session_attrs=read-write` to
        /// follow a promoted standby) or `key=value` pairs.
        public var url = ""
        /// The password for the connections, when it is not in `url` (`store.passwordFile` reads it from a file);
        /// a password `url` holds wins, as libpq's own sources (`PGPASSWORD`, the password file) lose to it.
        public var password: String?
        /// Connections this node keeps open to the database, shared by its worker threads.
        public var poolSize = 8
        /// Statements each connection keeps prepared on its session; past it the least recently used are
        /// deallocated.
        public var preparedStatements = 256
        /// How long a connection may go unanswered (the server or the network vanished without closing it) before
        /// it counts as broken: TCP keepalives and `tcp_user_timeout` (0: the system's defaults).
        public var tcpTimeoutSeconds = 30

        /// The defaults.
        public init() {}
    }
}
