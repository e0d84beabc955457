import Foundation
import KuraCore
import KuraModel
import KuraPostgres
import KuraStore
import Synchronization

/// One node's way into the shared database: a connection pool, and the schema brought up to date once per
/// process (several nodes starting at once are safe: `SchemaMigrator` serializes them on an advisory lock).
/// Every store the engine opens borrows from this pool.
public final class PostgresDatabase: Sendable {
    /// The libpq connection string (`store.url`).
    public let url: String
    /// The connections this node shares between its threads.
    public let pool: PostgresConnectionPool
    /// What every connection the engine opens is opened with (`store.preparedStatements`, `store.tcpTimeoutSeconds`).
    public let options: PostgresConnectionOptions
    private let migrated = Mutex(false)

    /// Opens nothing yet.
    public init(url: String, poolSize: Int, options: PostgresConnectionOptions = PostgresDatabase.defaultOptions) {
        self.url = url
        self.options = options
        pool = PostgresConnectionPool(url: url, maximumConnections: max(1, poolSize), options: options)
    }

    /// Opens nothing yet: `store.url`, `store.poolSize` and the connections' options from `settings`.
    public convenience init(_ settings: PostgresSettings) {
        self.init(url: settings.url, poolSize: settings.poolSize, options: Self.options(settings))
    }

    /// The connections' options the settings ask for: a bounded prepared-statement cache, and TCP keepalives and
    /// `tcp_user_timeout` (unless `store.url` sets them), so a connection whose server vanished without closing it
    /// fails within `store.tcpTimeoutSeconds` (docs/scaling.md, "When the database stops answering").
    /// `store.passwordFile`'s password goes in as a default too: a password `store.url` holds beats it.
    public static func options(_ settings: PostgresSettings) -> PostgresConnectionOptions {
        var defaults = PostgresConnectionOptions.unansweredConnectionTimeout(.seconds(settings.tcpTimeoutSeconds))
        if let password = settings.password { defaults["password"] = password }
        return PostgresConnectionOptions(
            preparedStatementLimit: max(1, settings.preparedStatements), defaultParameters: defaults)
    }

    /// The options of the default settings.
    public static let defaultOptions = options(PostgresSettings())

    /// A connection of its own (not from the pool), with the pool's options and, over them and over `store.url`,
    /// `overriding` (the notification listener's tighter timeouts).
    public func connect(overriding: [String: String] = [:]) throws -> PostgresConnection {
        var options = options
        options.overridingParameters.merge(overriding) { _, new in new }
        return try PostgresConnection(url: url, options: options)
    }

    /// The engine's schema: every component's steps, in version order (PostgresSchema.swift).
    public static let migrator = SchemaMigrator(PostgresSchema.migrations)

    /// Brings the schema up to date (once per process) and returns the pool. A step that rewrites rows reports
    /// its progress to `log`, or without one as an INFO line on standard error (the server log's format).
    @discardableResult
    public func prepared(log: (@Sendable (String) -> Void)? = nil) throws -> PostgresConnectionPool {
        guard !url.isEmpty else {
            throw APIError.unavailable("store.engine is postgres but store.url is not set")
        }
        try migrated.withLock { done in
            guard !done else { return }
            try pool.withConnection { connection in
                try Self.migrator.migrate(connection) { line in
                    if let log { log("store: \(line)") } else { Logger().info("store: \(line)") }
                }
            }
            done = true
        }
        return pool
    }

    /// Whether the database holds Kura's schema already (`false`: a new, empty database).
    public func holdsDocuments() throws -> Bool {
        guard !url.isEmpty else { return false }
        return try pool.withConnection { !(try Self.migrator.appliedVersions($0).isEmpty) }
    }

    /// The bytes the database takes on disk (`pg_database_size`).
    public func sizeBytes() throws -> Int64 {
        try pool.withConnection { try $0.query("SELECT pg_database_size(current_database())").int(0, 0) ?? 0 }
    }

    /// `url` with any password removed, for messages and logs.
    public static func redacted(_ url: String) -> String {
        var text = url
        if let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@") {
            let credentials = text[scheme.upperBound..<at]
            if let colon = credentials.firstIndex(of: ":") {
                text.replaceSubrange(colon..<at, with: ":***")
            }
        }
        if let range = text.range(of: #"password=[^ &]*"#, options: .regularExpression) {
            text.replaceSubrange(range, with: "password=***")
        }
        return text
    }
}
