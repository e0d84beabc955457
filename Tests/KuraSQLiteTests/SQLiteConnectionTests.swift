import CSQLite
import KuraSQLite
import KuraTestSupport
import Testing

/// The SQLite wrapper: every column type bound and read back as what it is, the statement cache, change counts and
/// the errors it reports.
@Suite struct SQLiteConnectionTests {
    /// A connection on a new database file in a temporary directory; `body` runs with it.
    func withDatabase<T>(_ body: (SQLiteConnection, TemporaryDirectory) throws -> T) throws -> T {
        let directory = try TemporaryDirectory("sqlite")
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.file("test.db"))
        return try body(connection, directory)
    }

    static let values: [SQLiteValue] = [
        .null, .int(0), .int(.max), .int(.min), .double(2.75), .double(-1e300), .double(3.0), .text(""),
        .text("héllo 'x' 😀"), .blob([]), .blob([0, 1, 0xFF, 0]),
    ]

    @Test("each value type binds and reads back as the same type and value")
    func roundTrip() throws {
        try withDatabase { db, _ in
            try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v)")
            for (id, value) in Self.values.enumerated() {
                try db.run("INSERT INTO t (id, v) VALUES (?, ?)", [.int(Int64(id)), value])
            }
            let rows = try db.rows("SELECT v, typeof(v) FROM t ORDER BY id")
            #expect(rows.count == Self.values.count)
            for (row, value) in zip(rows, Self.values) {
                #expect(Self.same(row[0], value), "\(value) read back as \(row[0])")
            }
            #expect(
                rows.map { $0[1].text } == [
                    "null", "integer", "integer", "integer", "real", "real", "real", "text", "text", "blob", "blob",
                ])
        }
    }

    /// Regression: REAL columns were read as `Int64(sqlite3_column_double(…))`, which dropped the fraction and
    /// trapped past the Int64 range.
    @Test("REAL columns read as doubles: no truncation, no trap past the Int64 range")
    func realColumns() throws {
        try withDatabase { db, _ in
            try db.execute("CREATE TABLE r (x REAL)")
            try db.run("INSERT INTO r VALUES (?)", [.double(1.5)])
            try db.run("INSERT INTO r VALUES (?)", [.double(-0.25)])
            try db.run("INSERT INTO r VALUES (1e20)")
            try db.run("INSERT INTO r VALUES (?)", [.int(7)])  // REAL affinity stores an integer as 7.0
            let read = try db.rows("SELECT x FROM r ORDER BY rowid").map { $0[0] }
            #expect(read.map(\.double) == [1.5, -0.25, 1e20, 7.0])
            #expect(read.allSatisfy { $0.int == nil })
            #expect(try db.rows("SELECT 0.1 + 0.2")[0][0].double == 0.1 + 0.2)
        }
    }

    @Test("the accessors read only their own case; blob also reads text as its UTF-8")
    func accessors() {
        #expect(SQLiteValue.int(3).int == 3 && SQLiteValue.int(3).double == nil && SQLiteValue.int(3).text == nil)
        #expect(SQLiteValue.double(3).double == 3 && SQLiteValue.double(3).int == nil)
        #expect(SQLiteValue.text("ab").text == "ab" && SQLiteValue.text("ab").blob == [0x61, 0x62])
        #expect(SQLiteValue.blob([1]).blob == [1] && SQLiteValue.blob([1]).text == nil)
        #expect(SQLiteValue.null.int == nil && SQLiteValue.null.blob == nil)
    }

    @Test("a cached statement comes back reset, its old bindings cleared")
    func statementCache() throws {
        try withDatabase { db, _ in
            #expect(try db.rows("SELECT ?", [.int(41)])[0][0].int == 41)
            #expect(Self.same(try db.rows("SELECT ?")[0][0], .null))
            let first = try db.statement("SELECT 1")
            #expect(try first.step())
            let again = try db.statement("SELECT 1")
            #expect(first === again)
            #expect(try again.step() && again.column(0).int == 1)
            #expect(try !again.step())
        }
    }

    @Test("changes and totalChanges count the rows written")
    func changeCounts() throws {
        try withDatabase { db, _ in
            try db.execute("CREATE TABLE t (x INTEGER)")
            try db.run("INSERT INTO t VALUES (1), (2), (3)")
            #expect(db.changes == 3)
            try db.run("UPDATE t SET x = x + 1 WHERE x > 1")
            #expect(db.changes == 2)
            #expect(db.totalChanges == 5)
        }
    }

    @Test("errors carry SQLite's extended code and say what was being done")
    func errors() throws {
        try withDatabase { db, directory in
            #expect {
                try db.rows("SELEC 1")
            } throws: { error in
                guard let error = error as? SQLiteError else { return false }
                return error.code == SQLITE_ERROR && error.message.hasPrefix("preparing SELEC 1")
            }
            try db.execute("CREATE TABLE u (k TEXT PRIMARY KEY)")
            try db.run("INSERT INTO u VALUES ('a')")
            #expect {
                try db.run("INSERT INTO u VALUES ('a')")
            } throws: { error in
                guard let error = error as? SQLiteError else { return false }
                // SQLITE_CONSTRAINT_PRIMARYKEY, a macro Swift does not import.
                return error.code == SQLITE_CONSTRAINT | (6 << 8) && error.message.hasPrefix("stepping")
            }
            #expect {
                try SQLiteConnection(path: directory.file("missing/dir/x.db"))
            } throws: { error in
                guard let error = error as? SQLiteError else { return false }
                return error.code == SQLITE_CANTOPEN && error.message.contains("missing/dir/x.db")
            }
            #expect(throws: SQLiteError.self) { try SQLiteConnection(path: directory.file("none.db"), readOnly: true) }
        }
    }

    /// Equality by case and value (SQLiteValue is not Equatable; doubles compare by bit pattern so -0.0 counts).
    static func same(_ a: SQLiteValue, _ b: SQLiteValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.int(let x), .int(let y)): x == y
        case (.double(let x), .double(let y)): x.bitPattern == y.bitPattern
        case (.text(let x), .text(let y)): x == y
        case (.blob(let x), .blob(let y)): x == y
        default: false
        }
    }
}
