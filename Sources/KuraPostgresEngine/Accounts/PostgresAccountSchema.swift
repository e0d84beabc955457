import KuraPostgres

/// The schema steps for accounts, sessions, rotated refresh tokens and action codes (versions 200–299;
/// PostgresSchema.swift). The tables and cascades are the SQLite engine's (`SQLiteAccountStore`): deleting an
/// account deletes its sessions, their spent tokens and its action codes.
enum PostgresAccountSchema {
    /// The unique key on `accounts.email_key`, named so that a violation of it (and of nothing else) becomes
    /// `EMAIL_EXISTS`.
    static let emailKeyConstraint = "accounts_email_key_unique"

    /// `uid` compares bytewise (`COLLATE "C"`), as SQLite's TEXT does, so `listAccounts` pages in the same order on
    /// both engines whatever the database's default collation, through the primary key's index.
    static let migrations: [SchemaMigration] = [
        SchemaMigration(
            version: 200, name: "accounts, sessions, rotated refresh tokens, action codes",
            sql: """
                CREATE TABLE accounts (
                    uid text COLLATE "C" PRIMARY KEY,
                    email text NOT NULL,
                    email_key text NOT NULL CONSTRAINT \(emailKeyConstraint) UNIQUE,
                    email_verified boolean NOT NULL,
                    display_name text,
                    password_hash text NOT NULL,
                    disabled boolean NOT NULL,
                    custom_claims text NOT NULL,
                    create_time bigint NOT NULL,
                    last_sign_in_time bigint);
                CREATE TABLE sessions (
                    id text PRIMARY KEY,
                    uid text COLLATE "C" NOT NULL REFERENCES accounts(uid) ON DELETE CASCADE,
                    refresh_token_hash bytea NOT NULL UNIQUE,
                    generation bigint NOT NULL,
                    auth_time bigint NOT NULL,
                    create_time bigint NOT NULL,
                    revoked boolean NOT NULL);
                CREATE INDEX sessions_by_uid ON sessions (uid);
                CREATE INDEX sessions_revoked ON sessions (id) WHERE revoked;
                CREATE TABLE rotated_refresh_tokens (
                    hash bytea PRIMARY KEY,
                    session_id text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                    rotated_at bigint,
                    generation bigint);
                CREATE INDEX rotated_by_session ON rotated_refresh_tokens (session_id);
                CREATE TABLE action_codes (
                    hash bytea PRIMARY KEY,
                    kind text NOT NULL,
                    uid text COLLATE "C" NOT NULL REFERENCES accounts(uid) ON DELETE CASCADE,
                    email text NOT NULL,
                    expire_time bigint NOT NULL,
                    used boolean NOT NULL);
                CREATE INDEX action_codes_by_uid ON action_codes (uid);
                CREATE INDEX action_codes_by_expiry ON action_codes (expire_time)
                """)
    ]
}
