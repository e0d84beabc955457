import KuraPostgres

/// The schema steps for what nodes share and tell each other (rules, admin key, notifications) (versions 500–599; PostgresSchema.swift).
enum PostgresClusterSchema {
    static let migrations: [SchemaMigration] = []
}
