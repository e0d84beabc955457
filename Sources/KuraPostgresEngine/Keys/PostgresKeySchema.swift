import KuraPostgres

/// The schema steps for ID-token signing keys (versions 300–399; PostgresSchema.swift). `position` orders the
/// keys: the highest is the active key, and each rotation stores the new key at the highest position plus one.
enum PostgresKeySchema {
    static let migrations: [SchemaMigration] = [
        SchemaMigration(
            version: 300, name: "signing keys",
            sql: """
                CREATE TABLE signing_keys (
                    position bigint PRIMARY KEY,
                    seed bytea NOT NULL CHECK (length(seed) = 32),
                    create_time bigint NOT NULL)
                """)
    ]
}
