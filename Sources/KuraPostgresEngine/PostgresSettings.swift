import KuraEngine
import KuraStore

/// Settings only the PostgreSQL engine reads (`store.url`, `store.passwordFile`, `store.poolSize`,
/// `store.preparedStatements`, `store.tcpTimeoutSeconds`; docs/scaling.md).
public struct PostgresSettings: EngineSettings {
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

extension StoreConfiguration {
    /// The PostgreSQL engine's own settings.
    public var postgres: PostgresSettings {
        get { self[PostgresSettings.self] }
        set { self[PostgresSettings.self] = newValue }
    }
}

extension PostgresEngine {
    /// `store.url`, `store.passwordFile`, `store.poolSize`, `store.preparedStatements`, `store.tcpTimeoutSeconds`
    /// (docs/configuration.md).
    public static let settings: [EngineSetting] = [
        EngineSetting("store.url", help: "the PostgreSQL engine's libpq connection string (postgresql://…)") {
            (settings: inout PostgresSettings, value) in settings.url = value.trimmed
        },
        EngineSetting(
            "store.passwordFile",
            help: "file whose first line is the PostgreSQL password, to keep it out of store.url (unset: libpq's)"
        ) { (settings: inout PostgresSettings, value) in settings.password = try value.firstLineOfFile() },
        EngineSetting("store.poolSize", help: "connections a node keeps to PostgreSQL (default 8)") {
            (settings: inout PostgresSettings, value) in settings.poolSize = try value.integer(in: 1...1000)
        },
        EngineSetting(
            "store.preparedStatements",
            help: "statements each PostgreSQL connection keeps prepared, least recently used dropped (default 256)"
        ) { (settings: inout PostgresSettings, value) in
            settings.preparedStatements = try value.integer(in: 16...100_000)
        },
        EngineSetting(
            "store.tcpTimeoutSeconds",
            help: "how long a PostgreSQL connection may go unanswered before it counts as broken; 0: OS (default 30)"
        ) { (settings: inout PostgresSettings, value) in settings.tcpTimeoutSeconds = try value.integer(in: 0...3600) },
    ]
}
