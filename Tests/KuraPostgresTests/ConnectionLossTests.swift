import Foundation
import KuraPostgres
import KuraTestSupport
import Testing

/// A statement sent after the server crashed fails as a connection failure (`isConnectionFailure`), whatever libpq
/// noticed first, so that the callers reconnect and go on instead of treating it as the statement's own error (an
/// index build marked ERROR for good was how this showed).
@Suite(TestPostgres.canStartServers)
struct ConnectionLossTests {
    @Test(
        "statements of every size on a connection whose server crashed are connection failures",
        arguments: [0, 1 << 22])
    func crashedServer(padding: Int) throws {
        let server = try TestPostgres.startServer()
        defer { try? TestPostgres.stopServer(server.directory) }
        let connection = try PostgresConnection(url: server.url)
        try connection.execute("BEGIN")
        try connection.query("SELECT 1")
        try TestPostgres.killServer(server.directory)
        let parameter = String(repeating: "x", count: padding)
        var failure: PostgresError?
        do {
            try connection.query("SELECT length($1)", [.text(parameter)])
        } catch let error as PostgresError {
            failure = error
        }
        #expect(failure?.isConnectionFailure == true, "\(failure.map { "\($0) (\($0.kind))" } ?? "no error")")
        #expect(!connection.isConnected)
    }

    @Test("a statement running when the server crashes fails as a connection failure")
    func crashDuringStatement() throws {
        let server = try TestPostgres.startServer()
        defer { try? TestPostgres.stopServer(server.directory) }
        let connection = try PostgresConnection(url: server.url)
        try connection.execute("BEGIN")
        let running = TestThread { () -> String in
            do {
                try connection.query("SELECT pg_sleep(600)")
                return "no error"
            } catch let error as PostgresError {
                return error.isConnectionFailure && !connection.isConnected ? "" : "\(error) (\(error.kind))"
            }
        }
        // The statement is running once its session shows it.
        let observer = try PostgresConnection(url: server.url)
        while try observer.query("SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(600)'")
            .string(0, 0) != "1"
        {
            usleep(10_000)
        }
        try TestPostgres.killServer(server.directory)
        let outcome = try running.join()
        #expect(outcome.isEmpty, "\(outcome)")
    }

    @Test("a pooled connection whose server restarted while it sat idle is re-opened before it is lent")
    func idleConnectionAcrossARestart() throws {
        let server = try TestPostgres.startServer()
        defer { try? TestPostgres.stopServer(server.directory) }
        let pool = PostgresConnectionPool(url: server.url, maximumConnections: 1, checkoutTimeout: .seconds(60))
        let before = try pool.withConnection { try $0.query("SELECT pg_backend_pid()").int(0, 0) }
        try TestPostgres.killServer(server.directory)
        try TestPostgres.restartServer(server.directory, url: server.url)
        // The first request after the restart must not be the one that finds the connection dead.
        let after = try pool.withConnection { try $0.query("SELECT pg_backend_pid()").int(0, 0) }
        #expect(after != nil && after != before)
    }
}
