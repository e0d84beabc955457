import KuraPostgres

/// The schema steps for what nodes share and tell each other (rules, admin key, notifications) (versions 500–599;
/// PostgresSchema.swift). Notifications need no table: `LISTEN kura_cluster` / `kura_changes`; the nodes alive
/// (`cluster_nodes`) are who a revocation waits for, and what the console lists.
enum PostgresClusterSchema {
    static let migrations: [SchemaMigration] = [
        SchemaMigration(
            version: 500, name: "shared security rules and admin key",
            sql: """
                CREATE TABLE rules (
                    version bigint PRIMARY KEY CHECK (version > 0),
                    source text NOT NULL,
                    published_at timestamptz NOT NULL DEFAULT now(),
                    published_by text NOT NULL DEFAULT ''
                );
                CREATE TABLE admin_key (
                    id int PRIMARY KEY CHECK (id = 1),
                    key text NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now()
                );
                """),
        SchemaMigration(
            version: 501, name: "nodes alive, for revocation acknowledgements",
            sql: """
                CREATE TABLE cluster_nodes (
                    name text PRIMARY KEY,
                    seen_at timestamptz NOT NULL DEFAULT now()
                );
                """),
        SchemaMigration(
            version: 502, name: "what nodes tell about themselves: address, version, start",
            sql: """
                ALTER TABLE cluster_nodes
                    ADD COLUMN address text NOT NULL DEFAULT '',
                    ADD COLUMN version text NOT NULL DEFAULT '',
                    ADD COLUMN started_at timestamptz NOT NULL DEFAULT now();
                """),
    ]
}
