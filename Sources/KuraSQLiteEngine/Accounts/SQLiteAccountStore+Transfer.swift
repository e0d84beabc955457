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
                    try db.run(SQLiteAccountStore.insertAccountSQL, SQLiteAccountStore.bindings(account))
                }
            }
        } catch let error as SQLiteError where error.isUniqueViolation {  // email_key
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
            SQLiteAccountStore.accountPageSQL, [.text(afterUID ?? ""), .int(Int64(max(0, limit)))]
        ).map(SQLiteAccountStore.account(from:))
    }
}
