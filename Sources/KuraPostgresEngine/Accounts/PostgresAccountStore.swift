import KuraAuth
import KuraCore
import KuraModel
import KuraPostgres

/// The PostgreSQL engine's `AccountStore`: the `accounts`, `sessions`, `rotated_refresh_tokens` and `action_codes`
/// tables (Accounts/PostgresAccountSchema.swift), shared by every node on the database. Single-row reads and writes
/// are one prepared statement each; what reads and then writes (rotating a refresh token, spending an action code)
/// is one READ COMMITTED transaction that locks the row it read (`SELECT … FOR UPDATE`), so a token or code presented
/// on two nodes at once is taken by one of them and refused to the other (PostgresAccountStore+Sessions.swift).
public final class PostgresAccountStore: AccountStore {
    let pool: PostgresConnectionPool

    /// The store on `database`, migrating its schema first if this process has not yet.
    public init(database: PostgresDatabase) throws {
        pool = try database.prepared()
    }

    static let accountColumns =
        "uid, email, email_key, email_verified, display_name, password_hash, disabled, custom_claims, create_time, "
        + "last_sign_in_time"
    /// Inserts one account (`parameters`).
    static let insertAccountSQL =
        "INSERT INTO accounts (\(accountColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
    /// A page of accounts in uid order: after uid `$1`, at most `$2` (`account(_:_:)` decodes the rows). Byte
    /// order: the column is `COLLATE "C"` (PostgresAccountSchema).
    static let accountPageSQL = "SELECT \(accountColumns) FROM accounts WHERE uid > $1 ORDER BY uid LIMIT $2"
    /// Email keys from a prefix on, in byte order (`COLLATE "C"`, which the column does not have, so this reads
    /// the table rather than its index: an administrator's search); the caller stops at the first key without it.
    static let emailPageSQL =
        "SELECT \(accountColumns) FROM accounts WHERE email_key COLLATE \"C\" >= $1 AND email_key COLLATE \"C\" > $2 "
        + "ORDER BY email_key COLLATE \"C\" LIMIT $3"

    public func insertAccount(_ account: AccountRecord) throws {
        try mapUniqueEmail {
            try pool.withConnection { connection in
                try connection.query(Self.insertAccountSQL, Self.parameters(account), prepared: true)
            }
        }
    }

    public func account(uid: String) throws -> AccountRecord? {
        try accounts("SELECT \(Self.accountColumns) FROM accounts WHERE uid = $1", [.text(uid)]).first
    }

    public func account(emailKey: String) throws -> AccountRecord? {
        try accounts("SELECT \(Self.accountColumns) FROM accounts WHERE email_key = $1", [.text(emailKey)]).first
    }

    @discardableResult public func updateAccount(_ account: AccountRecord) throws -> Bool {
        try mapUniqueEmail {
            try pool.withIdempotentConnection { connection in
                try connection.query(
                    """
                    UPDATE accounts SET email = $2, email_key = $3, email_verified = $4, display_name = $5,
                    password_hash = $6, disabled = $7, custom_claims = $8, create_time = $9, last_sign_in_time = $10
                    WHERE uid = $1
                    """, Self.parameters(account), prepared: true
                ).affectedRows > 0
            }
        }
    }

    @discardableResult public func deleteAccount(uid: String) throws -> Bool {
        try pool.withConnection { connection in
            // The foreign keys cascade to sessions, their rotated tokens and action codes.
            try connection.query("DELETE FROM accounts WHERE uid = $1", [.text(uid)], prepared: true).affectedRows > 0
        }
    }

    public func listAccounts(emailKeyPrefix prefix: String, after: String?, limit: Int) throws -> [AccountRecord] {
        let records = try accounts(Self.emailPageSQL, [.text(prefix), .text(after ?? ""), .int(Int64(max(0, limit)))])
        return Array(records.prefix { $0.emailKey.utf8.starts(with: prefix.utf8) })
    }

    public func listAccounts(afterUID: String?, limit: Int) throws -> [AccountRecord] {
        try accounts(Self.accountPageSQL, [.text(afterUID ?? ""), .int(Int64(max(0, limit)))])
    }

    private func accounts(_ sql: String, _ parameters: [PostgresValue]) throws -> [AccountRecord] {
        try pool.withIdempotentConnection { connection in
            let rows = try connection.query(sql, parameters, resultFormat: .binary, prepared: true)
            return try (0..<rows.rowCount).map { try Self.account(rows, $0) }
        }
    }

    /// Turns a unique violation of the email key into `EMAIL_EXISTS`; any other error passes through.
    private func mapUniqueEmail<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError
            where error.isUniqueViolation && error.message.contains(PostgresAccountSchema.emailKeyConstraint)
        {
            throw APIError.emailExists
        }
    }

    static func parameters(_ account: AccountRecord) -> [PostgresValue] {
        [
            .text(account.uid), .text(account.email), .text(account.emailKey), .bool(account.emailVerified),
            account.displayName.map(PostgresValue.text) ?? .null, .text(account.passwordHash), .bool(account.disabled),
            .text(JSONValue.object(account.customClaims).jsonString), .int(account.createTime),
            account.lastSignInTime.map(PostgresValue.int) ?? .null,
        ]
    }

    static func account(_ rows: PostgresResult, _ row: Int) throws -> AccountRecord {
        AccountRecord(
            uid: rows.string(row, 0) ?? "", email: rows.string(row, 1) ?? "", emailKey: rows.string(row, 2) ?? "",
            emailVerified: try rows.bool(row, 3) ?? false, displayName: rows.string(row, 4),
            passwordHash: rows.string(row, 5) ?? "", disabled: try rows.bool(row, 6) ?? false,
            customClaims: (try? JSONValue.parse(rows.string(row, 7) ?? "{}"))?.objectValue ?? JSONObject(),
            createTime: try rows.int(row, 8) ?? 0, lastSignInTime: try rows.int(row, 9))
    }
}
