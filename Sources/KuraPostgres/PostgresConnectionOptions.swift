/// How a `PostgresConnection` is opened beyond what its connection string says, and how many prepared statements
/// its session keeps.
public struct PostgresConnectionOptions: Sendable, Equatable {
    /// The most statements one session keeps prepared; past it, the least recently used are deallocated. Each costs
    /// server memory (its parse tree and cached plans) for the session's life.
    public var preparedStatementLimit: Int
    /// libpq connection parameters (keyword → value) used unless the connection string sets the same keyword.
    public var defaultParameters: [String: String]
    /// libpq connection parameters that win over the connection string's.
    public var overridingParameters: [String: String]

    /// The default: 256 prepared statements, no parameters beyond the connection string's.
    public init(
        preparedStatementLimit: Int = 256, defaultParameters: [String: String] = [:],
        overridingParameters: [String: String] = [:]
    ) {
        self.preparedStatementLimit = preparedStatementLimit
        self.defaultParameters = defaultParameters
        self.overridingParameters = overridingParameters
    }

    /// Parameters under which a session whose server stopped answering without closing the connection (the host
    /// powered off, a network cut, a firewall that forgot the connection) fails within about `timeout` instead of
    /// when the kernel gives up (over 15 minutes with data unacknowledged; hours, or never, on an idle
    /// connection): TCP keepalives probe an idle connection from `timeout / 2` on, every `timeout / 6`, three
    /// times; `tcp_user_timeout` fails one whose sent data stays unacknowledged for `timeout`; `connect_timeout`
    /// bounds each host's connection attempt (a multi-host URL then tries the next host). Empty for zero. libpq
    /// ignores them on Unix-domain sockets.
    public static func unansweredConnectionTimeout(_ timeout: Duration) -> [String: String] {
        let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        guard milliseconds > 0 else { return [:] }
        let seconds = (milliseconds + 999) / 1000
        return [
            "keepalives": "1",
            "keepalives_idle": String(max(1, seconds / 2)),
            "keepalives_interval": String(max(1, seconds / 6)),
            "keepalives_count": "3",
            "tcp_user_timeout": String(milliseconds),
            // In whole seconds; libpq takes 1 as 2.
            "connect_timeout": String(max(2, seconds)),
        ]
    }
}
