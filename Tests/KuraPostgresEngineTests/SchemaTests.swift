import KuraPostgres
import KuraPostgresEngine
import KuraTestSupport
import Testing

@Suite(TestPostgres.available)
struct SchemaTests {
    @Test("the engine's schema migrates a new database once, from several nodes at once")
    func migratesOnceFromSeveralNodes() throws {
        let url = try TestPostgres.freshDatabase()
        let nodes = (0..<3).map { _ in PostgresDatabase(url: url, poolSize: 2) }
        #expect(try nodes[0].holdsDocuments() == false)
        let threads = nodes.map { node in TestThread { try node.prepared() } }
        for thread in threads { _ = try thread.join() }
        let versions = try PostgresConnection(url: url).query("SELECT count(*) FROM schema_migrations")
        #expect(try versions.int(0, 0) == Int64(PostgresDatabase.migrator.migrations.count))
    }

    @Test("store.url's password never reaches a message")
    func redactsPasswords() {
        #expect(PostgresDatabase.redacted("postgresql://kura:s3cret@h1,h2/db") == "postgresql://kura:***@h1,h2/db")
        #expect(PostgresDatabase.redacted("host=h password=s3cret dbname=x") == "host=h password=*** dbname=x")
        #expect(PostgresDatabase.redacted("postgresql://h/db") == "postgresql://h/db")
    }
}
