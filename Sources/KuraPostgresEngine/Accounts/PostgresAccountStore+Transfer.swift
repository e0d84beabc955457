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
                        try connection.query(Self.insertAccountSQL, Self.parameters(account), prepared: true)
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
        let rows = try connection.query(
            PostgresAccountStore.accountPageSQL, [.text(afterUID ?? ""), .int(Int64(max(0, limit)))],
            resultFormat: .binary, prepared: true)
        return try (0..<rows.rowCount).map { try PostgresAccountStore.account(rows, $0) }
    }
}
