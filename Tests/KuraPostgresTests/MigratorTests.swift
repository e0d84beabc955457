import Foundation
import KuraPostgres
import KuraTestSupport
import Testing

@Suite(TestPostgres.available)
struct MigratorTests {
    /// Not idempotent on purpose: applying a step twice fails (`CREATE TABLE` without `IF NOT EXISTS`).
    static let steps = [
        SchemaMigration(version: 1, name: "documents", sql: "CREATE TABLE documents (path text PRIMARY KEY)"),
        SchemaMigration(
            version: 2, name: "document data",
            sql: "ALTER TABLE documents ADD COLUMN data jsonb; INSERT INTO documents VALUES ('a', '{}')"),
        SchemaMigration(version: 5, name: "accounts", sql: "CREATE TABLE accounts (id text PRIMARY KEY)"),
    ]

    @Test func appliesPendingStepsOnceInOrder() throws {
        let connection = try PostgresConnection(url: try TestPostgres.freshDatabase())
        #expect(try SchemaMigrator(Self.steps).appliedVersions(connection) == [])
        #expect(try SchemaMigrator(Array(Self.steps.prefix(2))).migrate(connection) == [1, 2])
        #expect(try SchemaMigrator(Self.steps).migrate(connection) == [5])
        #expect(try SchemaMigrator(Self.steps).migrate(connection) == [])
        #expect(try SchemaMigrator(Self.steps).appliedVersions(connection) == [1, 2, 5])
        #expect(try connection.query("SELECT count(*) FROM documents").int(0, 0) == 1)
    }

    @Test func aFailingStepRollsBackTheWholeRun() throws {
        let connection = try PostgresConnection(url: try TestPostgres.freshDatabase())
        let broken = Self.steps + [SchemaMigration(version: 6, name: "broken", sql: "CREATE TABLE accounts (x int)")]
        let error = #expect(throws: PostgresError.self) { try SchemaMigrator(broken).migrate(connection) }
        #expect(error?.sqlState == "42P07")  // duplicate table
        #expect(try SchemaMigrator(broken).appliedVersions(connection) == [])
        #expect(try connection.query("SELECT to_regclass('documents') IS NULL").bool(0, 0) == true)
    }

    @Test func severalNodesMigratingAtOnceApplyEachStepOnce() throws {
        let url = try TestPostgres.freshDatabase()
        // A slow first step holds the race window open: without the advisory lock, every node would find no
        // schema_migrations rows and run the steps again (and fail on CREATE TABLE).
        var steps = Self.steps
        steps[0].sql += "; SELECT pg_sleep(0.3)"
        let migrator = SchemaMigrator(steps)
        let nodes = (0..<4).map { _ in
            let connection = try! PostgresConnection(url: url)
            return TestThread { try migrator.migrate(connection) }
        }
        let applied = try nodes.map { try $0.join() }
        #expect(applied.filter { $0 == [1, 2, 5] }.count == 1)
        #expect(applied.filter { $0.isEmpty }.count == 3)
        #expect(try migrator.appliedVersions(PostgresConnection(url: url)) == [1, 2, 5])
    }

    @Test func refusesADatabaseMigratedByANewerBuild() throws {
        let connection = try PostgresConnection(url: try TestPostgres.freshDatabase())
        try SchemaMigrator(Self.steps).migrate(connection)
        let older = #expect(throws: PostgresError.self) {
            try SchemaMigrator(Array(Self.steps.prefix(2))).migrate(connection)
        }
        #expect(older?.kind == .schemaAhead)
        var renamed = Self.steps
        renamed[1].name = "something else"
        let disagreeing = #expect(throws: PostgresError.self) { try SchemaMigrator(renamed).migrate(connection) }
        #expect(disagreeing?.kind == .protocolViolation)
    }

    @Test func aRoleThatMayNotCreateTablesIsToldToOwnTheDatabase() throws {
        let url = try TestPostgres.freshDatabase()
        let database = String(url.split(separator: "/").last!.split(separator: "?").first!)
        let role = "\(database)_grantee"
        let connection = try PostgresConnection(url: url)
        // What PostgreSQL 15 gives a role that was only granted the database: no CREATE on the public schema (the
        // REVOKE makes older servers behave the same).
        try connection.execute(
            """
            CREATE ROLE \(role); GRANT ALL ON DATABASE \(database) TO \(role);
            REVOKE CREATE ON SCHEMA public FROM PUBLIC; SET ROLE \(role)
            """)
        let error = #expect(throws: PostgresError.self) { try SchemaMigrator(Self.steps).migrate(connection) }
        #expect(error?.sqlState == "42501")
        #expect(error?.message.contains("createdb -O \(role) \(database)") == true, "\(String(describing: error))")
        #expect(error?.message.contains("ALTER DATABASE \(database) OWNER TO \(role)") == true)

        try connection.execute("RESET ROLE; ALTER DATABASE \(database) OWNER TO \(role); SET ROLE \(role)")
        #expect(try SchemaMigrator(Self.steps).migrate(connection) == [1, 2, 5])
    }
}
