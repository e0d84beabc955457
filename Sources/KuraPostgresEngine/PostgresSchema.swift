import KuraPostgres

/// The PostgreSQL engine's schema: one `SchemaMigrator` list for the whole database, each component adding its
/// steps from its own file in its own range of version numbers, so components never renumber each other:
///
/// | versions | component | file |
/// | --- | --- | --- |
/// | 100–199 | documents, indexes, change log | Documents/PostgresDocumentSchema.swift (150: Documents/PostgresIndexBuildSchema.swift) |
/// | 200–299 | accounts, sessions, action codes | Accounts/PostgresAccountSchema.swift |
/// | 300–399 | signing keys | Keys/PostgresKeySchema.swift |
/// | 400–499 | mail outbox | Outbox/PostgresOutboxSchema.swift |
/// | 500–599 | what nodes share and tell each other (rules, admin key, notifications) | Cluster/PostgresClusterSchema.swift |
///
/// A step, once released, is never edited: change the schema with a new step.
enum PostgresSchema {
    static let migrations: [SchemaMigration] =
        (PostgresDocumentSchema.migrations + PostgresIndexBuildSchema.migrations
        + PostgresAccountSchema.migrations + PostgresKeySchema.migrations + PostgresOutboxSchema.migrations
        + PostgresClusterSchema.migrations).sorted { $0.version < $1.version }
}
