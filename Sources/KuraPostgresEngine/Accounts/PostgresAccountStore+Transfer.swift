import KuraAuth
import KuraCore
import KuraModel
import KuraPostgres

/// `kura export` / `kura import` on PostgreSQL: the snapshot is one `REPEATABLE READ, READ ONLY` transaction on a
/// pooled connection (every page reads the same snapshot; nodes keep writing meanwhile); an import batch is one
/// READ COMMITTED transaction.
extension PostgresAccountStore: AccountTransfer {
    public func withAccountSnapshot<T>(_ body: (any AccountSnapshot) throws -> T) throws -> T {
        try pool.withConnection { connection in
            try connection.transaction(isolation: "REPEATABLE READ READ ONLY") { connection in
                try body(PostgresAccountSnapshot(connection: connection))
            }
        }
    }

    public func importAccounts(_ accounts: [AccountRecord], replacing: Bool) throws {
        if accounts.isEmpty { return }
        do {
            try pool.withConnection { connection in
                try connection.transaction { connection in
                    for account in accounts {
                        if replacing {
                            // The foreign keys cascade to the replaced account's sessions and action codes.
                            try connection.query(
                                "DELETE FROM accounts WHERE uid = $1", [.text(account.uid)], prepared: true)
                        }
                        try connection.query(
                            "INSERT INTO accounts (\(Self.accountColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                            [
                                .text(account.uid), .text(account.email), .text(account.emailKey),
                                .bool(account.emailVerified), account.displayName.map(PostgresValue.text) ?? .null,
                                .text(account.passwordHash), .bool(account.disabled),
                                .text(JSONValue.object(account.customClaims).jsonString), .int(account.createTime),
                                account.lastSignInTime.map(PostgresValue.int) ?? .null,
                            ], prepared: true)
                    }
                }
            }
        } catch let error as PostgresError where error.isUniqueViolation {
            if error.message.contains(PostgresAccountSchema.emailKeyConstraint) { throw APIError.emailExists }
            throw APIError.alreadyExists("an account in the batch already exists: \(error.message)")
        }
    }
}

/// Accounts inside one REPEATABLE READ transaction.
struct PostgresAccountSnapshot: AccountSnapshot {
    let connection: PostgresConnection

    func accountCount() throws -> Int64 {
        try connection.query("SELECT count(*) FROM accounts", resultFormat: .binary).int(0, 0) ?? 0
    }

    func accounts(afterUID: String?, limit: Int) throws -> [AccountRecord] {
        // Byte order: the column is `COLLATE "C"` (PostgresAccountSchema).
        let rows = try connection.query(
            "SELECT \(PostgresAccountStore.accountColumns) FROM accounts WHERE uid > $1 ORDER BY uid LIMIT $2",
            [.text(afterUID ?? ""), .int(Int64(max(0, limit)))], resultFormat: .binary, prepared: true)
        return try (0..<rows.rowCount).map { row in
            AccountRecord(
                uid: rows.string(row, 0) ?? "", email: rows.string(row, 1) ?? "", emailKey: rows.string(row, 2) ?? "",
                emailVerified: try rows.bool(row, 3) ?? false, displayName: rows.string(row, 4),
                passwordHash: rows.string(row, 5) ?? "", disabled: try rows.bool(row, 6) ?? false,
                customClaims: (try? JSONValue.parse(rows.string(row, 7) ?? "{}"))?.objectValue ?? JSONObject(),
                createTime: try rows.int(row, 8) ?? 0, lastSignInTime: try rows.int(row, 9))
        }
    }
}
