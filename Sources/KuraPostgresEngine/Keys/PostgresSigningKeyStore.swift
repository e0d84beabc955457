import KuraAuth
import KuraCore
import KuraPostgres

/// The PostgreSQL engine's `SigningKeyStore`: the `signing_keys` table (Keys/PostgresKeySchema.swift), the one list
/// of ID-token signing keys every node signs and verifies with, active key (highest `position`) first.
///
/// `load()` is one prepared `SELECT`, cheap enough to call whenever a node wants to pick up a rotation made
/// elsewhere. The writers, `loadOrCreate` (when no key is stored yet) and `rotate`, run in a transaction that first
/// takes `LOCK TABLE signing_keys IN EXCLUSIVE MODE`: it queues writers behind each other (several nodes starting at
/// once store one first key, two rotations at once both land) while plain reads go on. `rotate` also sends a
/// notification on `rotationChannel` when it commits, for nodes that listen and then `load()`.
public final class PostgresSigningKeyStore: SigningKeyStore {
    /// The channel `rotate` notifies (`NOTIFY kura_signing_keys`, empty payload) in its transaction, so listeners
    /// hear of a rotation once it is visible to `load()`.
    public static let rotationChannel = "kura_signing_keys"

    private let pool: PostgresConnectionPool

    /// The keys on `database`, migrating its schema first if this process has not yet.
    public init(database: PostgresDatabase) throws {
        pool = try database.prepared()
    }

    public func loadOrCreate(initial: StoredSigningKey) throws -> [StoredSigningKey] {
        let keys = try load()
        if !keys.isEmpty { return keys }
        return try pool.withIdempotentConnection { connection in
            try connection.transaction { connection in
                try connection.execute("LOCK TABLE signing_keys IN EXCLUSIVE MODE")
                // Read again under the lock: another node may have stored its first key while this one waited.
                let stored = try Self.keys(connection)
                if !stored.isEmpty { return stored }
                try Self.insert(initial, at: 1, connection)
                return [initial]
            }
        }
    }

    public func load() throws -> [StoredSigningKey] {
        try pool.withIdempotentConnection { try Self.keys($0) }
    }

    public func rotate(to key: StoredSigningKey, retaining: Int) throws -> [StoredSigningKey] {
        try pool.withConnection { connection in
            try connection.transaction { connection in
                try connection.execute("LOCK TABLE signing_keys IN EXCLUSIVE MODE")
                let top = try connection.query(
                    "SELECT coalesce(max(position), 0) FROM signing_keys", resultFormat: .binary, prepared: true)
                let position = (try top.int(0, 0) ?? 0) + 1
                try Self.insert(key, at: position, connection)
                // Positions only grow by one per stored key, so the newest `retaining` before it are the positions
                // just below; anything lower goes.
                try connection.query(
                    "DELETE FROM signing_keys WHERE position < $1", [.int(position - Int64(max(0, retaining)))],
                    prepared: true)
                try connection.notify(Self.rotationChannel)
                return try Self.keys(connection)
            }
        }
    }

    private static func insert(_ key: StoredSigningKey, at position: Int64, _ connection: PostgresConnection) throws {
        try connection.query(
            "INSERT INTO signing_keys (position, seed, create_time) VALUES ($1, $2, $3)",
            [.int(position), .bytes(key.seed), .int(key.createTime)], prepared: true)
    }

    private static func keys(_ connection: PostgresConnection) throws -> [StoredSigningKey] {
        let rows = try connection.query(
            "SELECT seed, create_time FROM signing_keys ORDER BY position DESC", resultFormat: .binary, prepared: true)
        return try (0..<rows.rowCount).map { row in
            StoredSigningKey(seed: rows.bytes(row, 0) ?? [], createTime: try rows.int(row, 1) ?? 0)
        }
    }
}
