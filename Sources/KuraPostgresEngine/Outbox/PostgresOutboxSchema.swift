import KuraPostgres

/// The schema steps for the mail outbox (versions 400–499; PostgresSchema.swift).
enum PostgresOutboxSchema {
    static let migrations: [SchemaMigration] = []
}
