import Foundation
import KuraPostgres
import KuraTestSupport
import Testing

/// Multi-host URLs as a node uses them to follow a promoted standby: libpq skips hosts that are down and, with
/// `target_session_attrs=read-write`, hosts that only accept reads.
@Suite(TestPostgres.available, TestPostgres.canStartServers)
struct FailoverTests {
    @Test func readWriteSkipsAHostThatOnlyReads() throws {
        let primaryURL = try TestPostgres.freshDatabase()
        let database = String(primaryURL.split(separator: "/").last!.split(separator: "?").first!)
        // A second server standing in for a standby: up, with the same database, but read-only.
        let standby = try TestPostgres.startServer()
        defer { try? TestPostgres.stopServer(standby.directory) }
        let standbyAdmin = try PostgresConnection(url: standby.url)
        try standbyAdmin.execute("CREATE DATABASE \(database)")
        try standbyAdmin.execute("ALTER SYSTEM SET default_transaction_read_only = on")
        try standbyAdmin.query("SELECT pg_reload_conf()")

        let standbyHost = TestPostgres.hostAndPort(of: standby.url)
        let primaryHost = TestPostgres.hostAndPort(of: primaryURL)
        let bothHosts = TestPostgres.replacingDatabase(
            in: standby.url.replacingOccurrences(of: standbyHost, with: "\(standbyHost),\(primaryHost)"),
            with: database)

        // Reload is asynchronous: wait until new sessions on the standby see the setting.
        let readOnly = try waitUntil(timeout: 30) {
            try PostgresConnection(url: TestPostgres.replacingDatabase(in: standby.url, with: database))
                .query("SHOW transaction_read_only").string(0, 0) == "on"
        }
        #expect(readOnly)

        let anyHost = try PostgresConnection(url: bothHosts + "?target_session_attrs=any")
        #expect(anyHost.host + ":\(anyHost.port)" == standbyHost)
        let writable = try PostgresConnection(url: bothHosts + "?target_session_attrs=read-write")
        #expect(writable.host + ":\(writable.port)" == primaryHost)
        try writable.execute("CREATE TABLE written (id int)")
    }
}
