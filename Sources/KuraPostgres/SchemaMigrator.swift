/// One step of a database schema: SQL (and, where rows must be rewritten, work of its own) run once, in order, and
/// recorded in `schema_migrations`.
public struct SchemaMigration: Sendable {
    /// The step's number; steps run in increasing order, and a number is never reused.
    public var version: Int
    /// A short label, recorded beside the version (and checked: a different label for an applied version means
    /// two builds disagree about the schema).
    public var name: String
    /// The statements, `;`-separated. They run inside the migrator's transaction, so statements that refuse to
    /// run in one (`CREATE INDEX CONCURRENTLY`, `VACUUM`) do not belong here.
    public var sql: String
    /// Work after `sql`, in the same transaction: a step that rewrites rows does it here in chunks, calling
    /// `progress` with a line after each (the migrator logs them), since a large database takes a while.
    public var work: (@Sendable (PostgresConnection, _ progress: (String) -> Void) throws -> Void)?

    public init(
        version: Int, name: String, sql: String,
        work: (@Sendable (PostgresConnection, _ progress: (String) -> Void) throws -> Void)? = nil
    ) {
        self.version = version
        self.name = name
        self.sql = sql
        self.work = work
    }
}

/// Brings a database's schema up to date from an ordered list of migrations. All pending steps run in one
/// transaction under a transaction-level advisory lock, so several nodes starting at once are safe: the first
/// applies the steps, the others wait on the lock and then find nothing left to do. A failing step rolls back
/// every step of the run.
public struct SchemaMigrator: Sendable {
    /// The advisory lock key every migrator takes (per database): "kura.sch" as 8 ASCII bytes.
    public static let lockKey: Int64 = 0x6B75_7261_2E73_6368

    /// The steps, in increasing version order.
    public let migrations: [SchemaMigration]

    /// `migrations` must have strictly increasing versions.
    public init(_ migrations: [SchemaMigration]) {
        precondition(
            zip(migrations, migrations.dropFirst()).allSatisfy { $0.version < $1.version },
            "migration versions must increase strictly")
        self.migrations = migrations
    }

    /// Applies the pending steps and returns their versions (empty when the schema was current). Throws
    /// `.schemaAhead` when the database records a version this list does not know (a newer build migrated it),
    /// and `.protocolViolation` when an applied version's name differs from this list's. `progress` receives the
    /// lines of the pending steps' `work`.
    /// A `42501` (insufficient privilege) carries a hint: the role must own the database.
    @discardableResult
    public func migrate(_ connection: PostgresConnection, progress: (String) -> Void = { _ in }) throws -> [Int] {
        do {
            return try migrateInTransaction(connection, progress: progress)
        } catch let error as PostgresError where error.isInsufficientPrivilege {
            throw Self.withOwnershipHint(error, connection)
        }
    }

    /// `error` with a hint naming the role and database. The obvious `GRANT ALL ON DATABASE` does not let a role
    /// create tables in the `public` schema on PostgreSQL 15 and later; owning the database does.
    static func withOwnershipHint(_ error: PostgresError, _ connection: PostgresConnection) -> PostgresError {
        // The transaction was rolled back, so the session can still answer; fall back to the connection string.
        let names = try? connection.query("SELECT current_user, current_database()")
        let role = names?.string(0, 0) ?? connection.parameter("user") ?? "kura"
        let database = names?.string(0, 1) ?? connection.parameter("dbname") ?? role
        var hinted = error
        hinted.message +=
            "; the role \(role) cannot create Kura's tables: it needs to own the database. Create it with"
            + " `createdb -O \(role) \(database)`, or run `ALTER DATABASE \(database) OWNER TO \(role)` as a"
            + " superuser (GRANT ALL ON DATABASE is not enough on PostgreSQL 15 and later)"
        return hinted
    }

    private func migrateInTransaction(_ connection: PostgresConnection, progress: (String) -> Void) throws -> [Int] {
        try connection.transaction { connection in
            try connection.query("SELECT pg_advisory_xact_lock($1)", [.int(Self.lockKey)])
            // Created under the lock: concurrent `CREATE TABLE IF NOT EXISTS` can still collide on the catalog.
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version bigint PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now())
                """)
            let applied = try appliedMigrations(connection)
            let known = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0.name) })
            for (version, name) in applied.sorted(by: { $0.key < $1.key }) {
                guard let expected = known[version] else {
                    throw PostgresError(
                        kind: .schemaAhead,
                        message: "the database has schema version \(version) (\(name)), which this build does not know")
                }
                guard expected == name else {
                    throw PostgresError(
                        kind: .protocolViolation,
                        message: "schema version \(version) is \"\(name)\" in the database but \"\(expected)\" here")
                }
            }
            let pending = migrations.filter { applied[$0.version] == nil }
            for migration in pending {
                try connection.execute(migration.sql)
                try migration.work?(connection, progress)
                try connection.query(
                    "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                    [.int(Int64(migration.version)), .text(migration.name)])
            }
            return pending.map(\.version)
        }
    }

    /// The versions recorded in the database, in order (empty before the first migration).
    public func appliedVersions(_ connection: PostgresConnection) throws -> [Int] {
        let exists = try connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL")
        guard try exists.bool(0, 0) == true else { return [] }
        return try appliedMigrations(connection).keys.sorted()
    }

    private func appliedMigrations(_ connection: PostgresConnection) throws -> [Int: String] {
        let rows = try connection.query("SELECT version, name FROM schema_migrations")
        var applied: [Int: String] = [:]
        for row in 0..<rows.rowCount {
            applied[Int(try rows.int(row, 0)!)] = rows.string(row, 1)!
        }
        return applied
    }
}
