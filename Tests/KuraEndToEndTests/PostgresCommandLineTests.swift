import Foundation
import KuraTestSupport
import Testing

/// `kura admin` on the PostgreSQL engine: two data directories pointed at one database act as two nodes, so what
/// one creates the other sees.
@Suite(TestPostgres.available) struct PostgresCommandLineTests {
    @Test("accounts made through one data directory are there for another on the same database")
    func accountsAreSharedThroughTheDatabase() throws {
        let root = try TemporaryDirectory("cli-postgres")
        defer { root.remove() }
        let store = ["--set", "store.engine=postgres", "--set", "store.url=\(try TestPostgres.freshDatabase())"]
        let first = ["--data", root.file("node1")] + store
        let second = ["--data", root.file("node2")] + store

        let created = try CommandLineTests.kura(
            ["admin", "create-user", "--email", "Ops@Example.com", "--password", "a-long-password"] + first)
        #expect(created.status == 0, "\(created.output)")
        let again = try CommandLineTests.kura(
            ["admin", "create-user", "--email", "ops@example.com", "--password", "a-long-password"] + second)
        #expect(again.status != 0 && again.output.contains("EMAIL_EXISTS"), "\(again.output)")
        let other = try CommandLineTests.kura(
            ["admin", "create-user", "--email", "dev@example.com", "--password", "a-long-password"] + second)
        #expect(other.status == 0, "\(other.output)")

        let rotated = try CommandLineTests.kura(["admin", "rotate-keys"] + second)
        #expect(rotated.status == 0 && rotated.output.contains("new signing key"), "\(rotated.output)")
    }
}
