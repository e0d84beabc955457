import KuraAuth

extension AuthService {
    /// Opens the service on the SQLite engine in `directory` (the data directory): accounts, sessions and action
    /// codes in `accounts.db` (behind the in-memory account cache), signing keys in `auth-signing-keys.json`.
    public convenience init(
        directory: String, configuration: AuthConfiguration = AuthConfiguration(), clock: AuthClock = .system
    ) throws {
        try self.init(
            store: CachedAccountStore(
                base: SQLiteAccountStore(directory: directory), capacity: configuration.accountCacheCapacity),
            keys: SigningKeyFile(directory: directory), configuration: configuration, clock: clock)
    }
}
