import KuraAuth
import KuraMail
import KuraModel
import KuraPostgres
import KuraPostgresEngine
import KuraTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What only the PostgreSQL engine's stores have: pooled connections that the server dropped (a restart, a
/// failover, an idle connection cut by a proxy) cost a read nothing; the pool re-opens them and the read runs again.
@Suite(TestPostgres.available) struct PostgresReconnectTests {
    @Test func readsRunAgainOnAReopenedConnectionWhenTheServerDroppedTheirs() throws {
        let url = try TestPostgres.freshDatabase()
        defer { TestPostgres.dropDatabase(url) }
        let database = PostgresDatabase(url: url, poolSize: 2)
        let accounts = try PostgresAccountStore(database: database)
        let keys = try PostgresSigningKeyStore(database: database)
        let outbox = try PostgresOutboxStore(database: database)
        let key = StoredSigningKey(seed: Array(repeating: 7, count: 32), createTime: 1_800_000_000)
        try accounts.insertAccount(AccountStoreConformanceTests.account("ann"))
        #expect(try keys.loadOrCreate(initial: key) == [key])
        try outbox.insert(OutboxStoreConformanceTests.mail("a"))

        for attempt in 1...3 {
            let cut = try Self.dropEveryOtherSession(url)
            #expect(cut >= 1, "attempt \(attempt): the stores held no connection to cut")
            #expect(try accounts.account(uid: "ann")?.uid == "ann")
            #expect(try keys.load() == [key])
            #expect(try outbox.entry(MailID(rawValue: "a"))?.status == .pending)
        }
        #expect(database.pool.openConnections <= 2)
    }

    /// Terminates every other session on `url`'s database and waits until their server processes are gone, so that
    /// the next statement on any of them fails; returns how many there were.
    static func dropEveryOtherSession(_ url: String) throws -> Int {
        let admin = try PostgresConnection(url: url)
        let others = """
            FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
              AND backend_type = 'client backend'
            """
        let cut = try admin.query("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) \(others)")
        let gone = try waitUntil(timeout: 10) { try admin.query("SELECT count(*) \(others)").int(0, 0) == 0 }
        guard gone else { throw TestFailure("terminated sessions did not go away") }
        return Int(try cut.int(0, 0) ?? 0)
    }
}
