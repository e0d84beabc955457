import KuraPostgres

/// The schema step that lets one node claim a composite index build (PostgresDocumentStore+CompositeIndexes):
/// `composite_indexes.build_owner` names the store instance that ran the build's last step and
/// `build_lease_until` says until when the others leave the build to it. Apart from `PostgresDocumentSchema` (one
/// file per step while the write path's schema is being changed); in the documents' range, 100–199.
enum PostgresIndexBuildSchema {
    static let migrations: [SchemaMigration] = [
        SchemaMigration(
            version: 150, name: "composite index build leases",
            sql: """
                ALTER TABLE composite_indexes ADD COLUMN build_owner text, ADD COLUMN build_lease_until timestamptz
                """)
    ]
}
