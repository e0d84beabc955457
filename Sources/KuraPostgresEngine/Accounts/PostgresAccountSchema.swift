import KuraPostgres

/// The schema steps for accounts, sessions, rotated refresh tokens and action codes (versions 200–299; PostgresSchema.swift).
enum PostgresAccountSchema {
    static let migrations: [SchemaMigration] = []
}
