import KuraEngine
import KuraPostgres

/// The rules and the admin key every node shares (`SharedNodeState`), in the `rules` and `admin_key` tables
/// (PostgresClusterSchema.swift). Every version of the rules is kept, so an operator can see what was in force when.
public struct PostgresSharedState: SharedNodeState {
    /// Serializes publications across nodes: `pg_advisory_xact_lock` on this key ("kura.rul").
    static let publishLock: Int64 = 0x6B75_7261_2E72_756C

    let database: PostgresDatabase
    /// Recorded with each published version (`published_by`), for operators.
    let node: String

    public init(database: PostgresDatabase, node: String) {
        self.database = database
        self.node = node
    }

    public func latestRules() throws -> SharedRules? {
        try database.prepared().withConnection { connection in
            let rows = try connection.query(
                "SELECT version, source FROM rules ORDER BY version DESC LIMIT 1", prepared: true)
            return try Self.rules(rows)
        }
    }

    public func latestRulesVersion() throws -> Int64 {
        try database.prepared().withConnection { connection in
            let rows = try connection.query("SELECT coalesce(max(version), 0) FROM rules", prepared: true)
            return try rows.int(0, 0) ?? 0
        }
    }

    public func rules(version: Int64) throws -> SharedRules? {
        try database.prepared().withConnection { connection in
            let rows = try connection.query(
                "SELECT version, source FROM rules WHERE version = $1", [.int(version)], prepared: true)
            return try Self.rules(rows)
        }
    }

    public func publishRules(_ source: String) throws -> (rules: SharedRules, published: Bool) {
        try database.prepared().withConnection { connection in
            try connection.transaction { connection in
                // One publisher at a time across nodes, so "the same text as the newest" is decided once.
                try connection.query("SELECT pg_advisory_xact_lock($1)", [.int(Self.publishLock)])
                let latest = try Self.rules(
                    connection.query("SELECT version, source FROM rules ORDER BY version DESC LIMIT 1"))
                if let latest, latest.source.utf8.elementsEqual(source.utf8) { return (latest, false) }
                let version = (latest?.version ?? 0) + 1
                try connection.query(
                    "INSERT INTO rules (version, source, published_by) VALUES ($1, $2, $3)",
                    [.int(version), .text(source), .text(node)])
                return (SharedRules(version: version, source: source), true)
            }
        }
    }

    public func adminKey(proposing proposed: String) throws -> String {
        try database.prepared().withConnection { connection in
            try connection.query(
                "INSERT INTO admin_key (id, key) VALUES (1, $1) ON CONFLICT (id) DO NOTHING", [.text(proposed)])
            let rows = try connection.query("SELECT key FROM admin_key WHERE id = 1")
            guard rows.rowCount == 1, let key = rows.string(0, 0) else {
                throw PostgresError(kind: .protocolViolation, message: "admin_key holds no key")
            }
            return key
        }
    }

    private static func rules(_ rows: PostgresResult) throws -> SharedRules? {
        guard rows.rowCount > 0, let version = try rows.int(0, 0), let source = rows.string(0, 1) else { return nil }
        return SharedRules(version: version, source: source)
    }
}
