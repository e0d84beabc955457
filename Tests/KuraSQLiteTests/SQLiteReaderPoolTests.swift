import CSQLite
import Foundation
import KuraSQLite
import KuraTestSupport
import Testing

/// Read connections: read-only, reused, one per concurrent reader, and a stable snapshot in WAL mode.
@Suite struct SQLiteReaderPoolTests {
    /// A WAL database with `t(x)` holding 1, its writer and a pool of readers on it.
    func withPool<T>(_ body: (SQLiteConnection, SQLiteReaderPool) throws -> T) throws -> T {
        let directory = try TemporaryDirectory("sqlite-pool")
        defer { directory.remove() }
        let writer = try SQLiteConnection(path: directory.file("test.db"))
        try writer.execute("PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
        let pool = SQLiteReaderPool(path: directory.file("test.db"))
        defer { pool.close() }
        return try body(writer, pool)
    }

    @Test("readers see committed writes and cannot write")
    func readOnly() throws {
        try withPool { writer, pool in
            try writer.run("INSERT INTO t VALUES (2)")
            #expect(try pool.withConnection { try $0.rows("SELECT count(*) FROM t")[0][0].int } == 2)
            #expect(throws: SQLiteError.self) { try pool.withConnection { try $0.run("INSERT INTO t VALUES (3)") } }
        }
    }

    @Test("a returned connection is reused; a nested reader gets a connection of its own")
    func reuse() throws {
        try withPool { _, pool in
            let first = try pool.withConnection { ObjectIdentifier($0) }
            let second = try pool.withConnection { ObjectIdentifier($0) }
            #expect(first == second)
            let (outer, inner) = try pool.withConnection { outer in
                (ObjectIdentifier(outer), try pool.withConnection { ObjectIdentifier($0) })
            }
            #expect(outer != inner)
        }
    }

    @Test("withSnapshot sees one snapshot while the writer commits")
    func snapshot() throws {
        try withPool { writer, pool in
            let (before, inside, after) = try pool.withSnapshot { reader in
                let before = try reader.rows("SELECT count(*) FROM t")[0][0].int
                try writer.run("INSERT INTO t VALUES (2)")
                let inside = try reader.rows("SELECT count(*) FROM t")[0][0].int
                return (before, inside, try pool.withConnection { try $0.rows("SELECT count(*) FROM t")[0][0].int })
            }
            #expect(before == 1 && inside == 1, "the snapshot moved")
            #expect(after == 2, "a new reader sees the commit")
        }
    }

    @Test("a reader on a file that is not a database fails with SQLite's error")
    func notADatabase() throws {
        let directory = try TemporaryDirectory("sqlite-pool")
        defer { directory.remove() }
        try "not a database, just text that is long enough to fill a header".write(
            toFile: directory.file("junk.db"), atomically: true, encoding: .utf8)
        let pool = SQLiteReaderPool(path: directory.file("junk.db"))
        #expect {
            try pool.withConnection { try $0.rows("SELECT * FROM sqlite_master") }
        } throws: { error in (error as? SQLiteError)?.code == SQLITE_NOTADB }
    }
}
