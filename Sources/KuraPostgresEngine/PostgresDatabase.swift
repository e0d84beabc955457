import Foundation
import KuraCore
import KuraModel
import KuraPostgres
import Synchronization

/// One node's way into the shared database: a connection pool, and the schema brought up to date once per
/// process (several nodes starting at once are safe: `SchemaMigrator` serializes them on an advisory lock).
/// Every store the engine opens borrows from this pool.
public final class PostgresDatabase: Sendable {
    /// The libpq connection string (`store.url`).
    public let url: String
    /// The connections this node shares between its threads.
    public let pool: PostgresConnectionPool
    private let migrated = Mutex(false)

    /// Opens nothing yet.
    public init(url: String, poolSize: Int) {
        self.url = url
        pool = PostgresConnectionPool(url: url, maximumConnections: max(1, poolSize))
    }

    /// The engine's schema: every component's steps, in version order (PostgresSchema.swift).
    public static let migrator = SchemaMigrator(PostgresSchema.migrations)

    /// Brings the schema up to date (once per process) and returns the pool.
    @discardableResult
    public func prepared() throws -> PostgresConnectionPool {
        guard !url.isEmpty else {
            throw APIError.unavailable("store.engine is postgres but store.url is not set")
        }
        try migrated.withLock { done in
            guard !done else { return }
            try pool.withConnection { try Self.migrator.migrate($0) }
            done = true
        }
        return pool
    }

    /// Whether the database holds Kura's schema already (`false`: a new, empty database).
    public func holdsDocuments() throws -> Bool {
        guard !url.isEmpty else { return false }
        return try pool.withConnection { !(try Self.migrator.appliedVersions($0).isEmpty) }
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
