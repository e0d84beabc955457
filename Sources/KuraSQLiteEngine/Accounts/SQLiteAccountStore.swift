import Foundation
import KuraAuth
import KuraCore
import KuraModel
import KuraSQLite
import Synchronization

/// `AccountStore` in its own SQLite file (`<directory>/accounts.db`): WAL, `synchronous=FULL`. One writer
/// connection behind a lock; reads come from a reader pool and never wait for it.
public final class SQLiteAccountStore: AccountStore, Sendable {
    /// The database file.
    public let path: String
    /// The write connection, used by one thread at a time.
    private let writer: Mutex<SQLiteConnection>
    private let readers: SQLiteReaderPool

    /// Opens (creating and migrating) `<directory>/accounts.db`.
    public init(directory: String) throws {
        path = (directory as NSString).appendingPathComponent("accounts.db")
        let writer = try SQLiteConnection(path: path)
        try writer.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON")
        try writer.execute(Self.schema)
        // Databases from before the reuse grace: their spent tokens have no time, so they never get the grace.
        let rotatedColumns = Set(
            try writer.rows("PRAGMA table_info(rotated_refresh_tokens)").compactMap { $0[1].text })
        for column in ["rotated_at", "generation"] where !rotatedColumns.contains(column) {
            try writer.execute("ALTER TABLE rotated_refresh_tokens ADD COLUMN \(column) INTEGER")
        }
        self.writer = Mutex(writer)
        readers = SQLiteReaderPool(path: path)
    }

    deinit { readers.close() }

    static let schema = """
        CREATE TABLE IF NOT EXISTS accounts (
            uid TEXT PRIMARY KEY,
            email TEXT NOT NULL,
            email_key TEXT NOT NULL UNIQUE,
            email_verified INTEGER NOT NULL,
            display_name TEXT,
            password_hash TEXT NOT NULL,
            disabled INTEGER NOT NULL,
            custom_claims TEXT NOT NULL,
            create_time INTEGER NOT NULL,
            last_sign_in_time INTEGER
        ) STRICT;
        CREATE TABLE IF NOT EXISTS sessions (
            id TEXT PRIMARY KEY,
            uid TEXT NOT NULL REFERENCES accounts(uid) ON DELETE CASCADE,
            refresh_token_hash BLOB NOT NULL UNIQUE,
            generation INTEGER NOT NULL,
            auth_time INTEGER NOT NULL,
            create_time INTEGER NOT NULL,
            revoked INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX IF NOT EXISTS sessions_by_uid ON sessions(uid);
        CREATE TABLE IF NOT EXISTS rotated_refresh_tokens (
            hash BLOB PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            rotated_at INTEGER,
            generation INTEGER
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS rotated_by_session ON rotated_refresh_tokens(session_id);
        CREATE TABLE IF NOT EXISTS action_codes (
            hash BLOB PRIMARY KEY,
            kind TEXT NOT NULL,
            uid TEXT NOT NULL REFERENCES accounts(uid) ON DELETE CASCADE,
            email TEXT NOT NULL,
            expire_time INTEGER NOT NULL,
            used INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS action_codes_by_uid ON action_codes(uid);
        """

    /// Runs `body` in an immediate write transaction on the writer.
    func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try writer.withLock { writer in
            try writer.execute("BEGIN IMMEDIATE")
            do {
                let result = try body(writer)
                try writer.execute("COMMIT")
                return result
            } catch {
                try? writer.execute("ROLLBACK")
                throw error
            }
        }
    }

    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T { try readers.withConnection(body) }

    // MARK: Accounts

    private static let accountColumns =
        "uid, email, email_key, email_verified, display_name, password_hash, disabled, custom_claims, create_time, "
        + "last_sign_in_time"
    /// Inserts one account (`bindings`).
    static let insertAccountSQL = "INSERT INTO accounts (\(accountColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    /// A page of accounts in uid order: after uid `?1`, at most `?2` (`account(from:)` decodes the rows).
    static let accountPageSQL = "SELECT \(accountColumns) FROM accounts WHERE uid > ? ORDER BY uid LIMIT ?"
    /// Email keys from a prefix on, in byte order (the unique index on `email_key` serves it); the caller stops at
    /// the first key without the prefix.
    static let emailPageSQL =
        "SELECT \(accountColumns) FROM accounts WHERE email_key >= ? AND email_key > ? ORDER BY email_key LIMIT ?"

    public func insertAccount(_ account: AccountRecord) throws {
        try mapUniqueEmail {
            try write { db in
                try db.run(Self.insertAccountSQL, Self.bindings(account))
            }
        }
    }

    public func account(uid: String) throws -> AccountRecord? {
        try read { try $0.rows("SELECT \(Self.accountColumns) FROM accounts WHERE uid = ?", [.text(uid)]) }
            .first.map(Self.account(from:))
    }

    public func account(emailKey: String) throws -> AccountRecord? {
        try read { try $0.rows("SELECT \(Self.accountColumns) FROM accounts WHERE email_key = ?", [.text(emailKey)]) }
            .first.map(Self.account(from:))
    }

    @discardableResult public func updateAccount(_ account: AccountRecord) throws -> Bool {
        try mapUniqueEmail {
            try write { db in
                var values = Self.bindings(account)
                values.append(values.removeFirst())  // uid goes to the WHERE clause
                try db.run(
                    """
                    UPDATE accounts SET email = ?, email_key = ?, email_verified = ?, display_name = ?,
                    password_hash = ?, disabled = ?, custom_claims = ?, create_time = ?, last_sign_in_time = ?
                    WHERE uid = ?
                    """, values)
                return db.changes > 0
            }
        }
    }

    @discardableResult public func deleteAccount(uid: String) throws -> Bool {
        try write { db in
            // Foreign keys cascade to sessions, their rotated tokens and action codes.
            try db.run("DELETE FROM accounts WHERE uid = ?", [.text(uid)])
            return db.changes > 0
        }
    }

    public func listAccounts(emailKeyPrefix prefix: String, after: String?, limit: Int) throws -> [AccountRecord] {
        let records = try read { db in
            try db.rows(Self.emailPageSQL, [.text(prefix), .text(after ?? ""), .int(Int64(limit))])
        }.map(Self.account(from:))
        return Array(records.prefix { $0.emailKey.utf8.starts(with: prefix.utf8) })
    }

    public func listAccounts(afterUID: String?, limit: Int) throws -> [AccountRecord] {
        try read { db in
            try db.rows(Self.accountPageSQL, [.text(afterUID ?? ""), .int(Int64(limit))])
        }.map(Self.account(from:))
    }

    private func mapUniqueEmail<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError where error.isUniqueViolation {
            throw APIError.emailExists
        }
    }

    static func bindings(_ account: AccountRecord) -> [SQLiteValue] {
        [
            .text(account.uid), .text(account.email), .text(account.emailKey), .int(account.emailVerified ? 1 : 0),
            account.displayName.map(SQLiteValue.text) ?? .null, .text(account.passwordHash),
            .int(account.disabled ? 1 : 0), .text(JSONValue.object(account.customClaims).jsonString),
            .int(account.createTime), account.lastSignInTime.map(SQLiteValue.int) ?? .null,
        ]
    }

    static func account(from row: [SQLiteValue]) -> AccountRecord {
        AccountRecord(
            uid: row[0].text ?? "", email: row[1].text ?? "", emailKey: row[2].text ?? "",
            emailVerified: row[3].int == 1, displayName: row[4].text, passwordHash: row[5].text ?? "",
            disabled: row[6].int == 1,
            customClaims: (try? JSONValue.parse(row[7].text ?? "{}"))?.objectValue ?? JSONObject(),
            createTime: row[8].int ?? 0, lastSignInTime: row[9].int)
    }
}
