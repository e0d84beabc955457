import KuraPostgres

/// The schema steps for the mail outbox (versions 400–499; PostgresSchema.swift). The columns are the SQLite
/// engine's (`SQLiteOutboxStore`); `outbox_due` holds only pending mails, in the order `claimNext` takes them.
enum PostgresOutboxSchema {
    static let migrations: [SchemaMigration] = [
        SchemaMigration(
            version: 400, name: "mail outbox",
            sql: """
                CREATE TABLE outbox (
                    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    id text NOT NULL UNIQUE,
                    status text NOT NULL,
                    sender text NOT NULL,
                    recipient text NOT NULL,
                    subject text NOT NULL,
                    action_link text,
                    message bytea NOT NULL,
                    attempts bigint NOT NULL DEFAULT 0,
                    last_error text,
                    created_at bigint NOT NULL,
                    last_attempt_at bigint,
                    next_attempt_at bigint,
                    sent_at bigint,
                    lease_until bigint);
                CREATE INDEX outbox_due ON outbox (next_attempt_at, seq) WHERE status = 'pending';
                CREATE INDEX outbox_by_status ON outbox (status, seq)
                """)
    ]
}
