import KuraPostgres

/// The schema steps for documents, composite indexes and the change log (versions 100–199; PostgresSchema.swift).
enum PostgresDocumentSchema {
    static let migrations: [SchemaMigration] = []
}
