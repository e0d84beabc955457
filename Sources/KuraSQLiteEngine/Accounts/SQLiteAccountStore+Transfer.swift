import KuraAuth
import KuraCore
import KuraModel
import KuraSQLite

/// `kura export` / `kura import` on SQLite: the snapshot is one read transaction on `accounts.db`; an import batch
/// is one write transaction (one fsync for the batch, not one per account).
extension SQLiteAccountStore: AccountTransfer {
    public func withAccountSnapshot<T>(_ body: (any AccountSnapshot) throws -> T) throws -> T {
        try read { connection in
            try connection.run("BEGIN")
            defer { try? connection.run("COMMIT") }
            return try body(SQLiteAccountSnapshot(connection: connection))
        }
    }

    public func importAccounts(_ accounts: [AccountRecord], replacing: Bool) throws {
        if accounts.isEmpty { return }
        do {
            try write { db in
                for account in accounts {
                    let exists = try !db.rows("SELECT 1 FROM accounts WHERE uid = ?", [.text(account.uid)]).isEmpty
                    if exists {
                        guard replacing else { throw APIError.alreadyExists("account \(account.uid) already exists") }
                        try db.run("DELETE FROM accounts WHERE uid = ?", [.text(account.uid)])
                    }
                    try db.run(
                        """
                        INSERT INTO accounts (uid, email, email_key, email_verified, display_name, password_hash,
                        disabled, custom_claims, create_time, last_sign_in_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                        [
                            .text(account.uid), .text(account.email), .text(account.emailKey),
                            .int(account.emailVerified ? 1 : 0), account.displayName.map(SQLiteValue.text) ?? .null,
                            .text(account.passwordHash), .int(account.disabled ? 1 : 0),
                            .text(JSONValue.object(account.customClaims).jsonString), .int(account.createTime),
                            account.lastSignInTime.map(SQLiteValue.int) ?? .null,
                        ])
                }
            }
        } catch let error as SQLiteError where error.code == 2067 {  // SQLITE_CONSTRAINT_UNIQUE: email_key
            throw APIError.emailExists
        }
    }
}

/// Accounts inside one read transaction on `accounts.db`.
struct SQLiteAccountSnapshot: AccountSnapshot {
    let connection: SQLiteConnection

    func accountCount() throws -> Int64 {
        try connection.rows("SELECT count(*) FROM accounts").first?[0].int ?? 0
    }

    func accounts(afterUID: String?, limit: Int) throws -> [AccountRecord] {
        try connection.rows(
            """
            SELECT uid, email, email_key, email_verified, display_name, password_hash, disabled, custom_claims,
            create_time, last_sign_in_time FROM accounts WHERE uid > ? ORDER BY uid LIMIT ?
            """, [.text(afterUID ?? ""), .int(Int64(max(0, limit)))]
        ).map { row in
            AccountRecord(
                uid: row[0].text ?? "", email: row[1].text ?? "", emailKey: row[2].text ?? "",
                emailVerified: row[3].int == 1, displayName: row[4].text, passwordHash: row[5].text ?? "",
                disabled: row[6].int == 1,
                customClaims: (try? JSONValue.parse(row[7].text ?? "{}"))?.objectValue ?? JSONObject(),
                createTime: row[8].int ?? 0, lastSignInTime: row[9].int)
        }
    }
}
