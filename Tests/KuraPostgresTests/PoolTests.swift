import Foundation
import KuraPostgres
import KuraTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite(TestPostgres.available)
struct PoolTests {
    @Test func manyThreadsShareABoundedPool() throws {
        let url = try TestPostgres.freshDatabase()
        try PostgresConnection(url: url).execute("CREATE TABLE hits (thread int, n int)")
        let pool = PostgresConnectionPool(url: url, maximumConnections: 3, checkoutTimeout: .seconds(60))
        let threads = (0..<8).map { thread in
            TestThread {
                for n in 0..<20 {
                    try pool.withConnection { connection in
                        try connection.query(
                            "INSERT INTO hits VALUES ($1, $2)", [.int(Int64(thread)), .int(Int64(n))], prepared: true)
                    }
                }
            }
        }
        for thread in threads { try thread.join() }
        #expect(pool.openConnections <= 3)
        let count = try pool.withConnection { try $0.query("SELECT count(DISTINCT (thread, n)) FROM hits").int(0, 0) }
        #expect(count == 160)
    }

    @Test func aCheckoutWaitsThenTimesOut() throws {
        let pool = PostgresConnectionPool(
            url: try TestPostgres.freshDatabase(), maximumConnections: 1, checkoutTimeout: .milliseconds(200))
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = TestThread {
            try pool.withConnection { _ in
                holding.signal()
                release.wait()
            }
        }
        holding.wait()
        let error = #expect(throws: PostgresError.self) { try pool.withConnection { _ in } }
        #expect(error?.kind == .poolTimeout)
        release.signal()
        try holder.join()
        try pool.withConnection { _ in }  // free again
    }

    @Test func aBrokenConnectionIsReopenedAndAnOpenTransactionRolledBack() throws {
        let url = try TestPostgres.freshDatabase()
        try PostgresConnection(url: url).execute("CREATE TABLE t (id int)")
        let pool = PostgresConnectionPool(url: url, maximumConnections: 1)
        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try pool.withConnection { connection in
                try connection.execute("BEGIN")
                try connection.query("INSERT INTO t VALUES (1)")
                throw Abandon()
            }
        }
        let pid = try pool.withConnection { (connection) throws -> Int32 in
            #expect(!connection.isInTransaction)
            #expect(try connection.query("SELECT count(*) FROM t").int(0, 0) == 0)
            return connection.serverProcessID
        }
        let observer = try PostgresConnection(url: url)
        try observer.query("SELECT pg_terminate_backend($1::int)", [.int(Int64(pid))])
        // Once the server process is gone (its socket closed), the idle connection is re-opened before it is lent:
        // no borrower finds it dead. The process leaves pg_stat_activity just before it exits; a server on this
        // machine is watched until the process itself is gone.
        while try observer.query("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", [.int(Int64(pid))])
            .int(0, 0) != 0
        {
            usleep(10_000)
        }
        if TestPostgres.hostAndPort(of: url).hasPrefix("127.0.0.1") { while kill(pid, 0) == 0 { usleep(10_000) } }
        let newPid = try pool.withConnection { (connection) throws -> Int32 in
            #expect(try connection.query("SELECT 1").int(0, 0) == 1)
            return connection.serverProcessID
        }
        #expect(newPid != pid)
    }
}
