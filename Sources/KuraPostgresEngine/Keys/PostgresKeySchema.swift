import KuraPostgres

/// The schema steps for ID-token signing keys (versions 300–399; PostgresSchema.swift).
enum PostgresKeySchema {
    static let migrations: [SchemaMigration] = []
}
