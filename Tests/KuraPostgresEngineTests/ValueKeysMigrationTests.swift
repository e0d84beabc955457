import KuraModel
import KuraPostgres
import KuraStore
import KuraStoreTestSupport
import KuraTestSupport
import Testing

@testable import KuraPostgresEngine

/// Schema step 101 (PostgresDocumentSchema): documents stored before it get their value keys from their data.
@Suite(TestPostgres.available)
struct ValueKeysMigrationTests {
    @Test("step 101 writes every document's value keys in chunks, reports its progress, and drops idx_doc")
    func rewritesEveryDocument() throws {
        let url = try TestPostgres.freshDatabase()
        let connection = try PostgresConnection(url: url)
        try SchemaMigrator(PostgresDatabase.migrator.migrations.filter { $0.version != 101 }).migrate(connection)
        let cid = try connection.query(
            "INSERT INTO collections(path, group_id, pkey) VALUES ($1, $1, $2) RETURNING cid",
            [.bytes(Array("items".utf8)), .bytes([])], resultFormat: .binary
        ).int(0, 0)
        let count = 2 * Int(PostgresValueKeys.fillChunk) + 3
        func fields(_ i: Int) -> JSONObject {
            i % 1000 == 7
                ? JSONObject()
                : object(["n": .int(Int64(i)), "tag": .string("t\(i % 3)"), "m": ["x": .bool(i % 2 == 0)]])
        }
        for start in stride(from: 0, to: count, by: 500) {
            let range = start..<min(count, start + 500)
            try connection.query(
                """
                INSERT INTO docs(cid, id, data, ctime, utime, version)
                SELECT $1, u.id, u.data, 1, 1, 1 FROM unnest($2::bytea[], $3::bytea[]) AS u(id, data)
                """,
                [
                    .int(cid ?? 0), .bytesArray(range.map { Array("d\($0)".utf8) }),
                    .bytesArray(try range.map { try DocumentLimits.validate(fields($0)) }),
                ])
        }
        var lines: [String] = []
        #expect(try PostgresDatabase.migrator.migrate(connection) { lines.append($0) } == [101])
        #expect(lines.first == "rewriting \(count) documents with their value keys (schema step 101)")
        #expect(lines.count == 4)
        #expect(lines.dropFirst().first == "value keys: 2000 of \(count) documents (49 %)")
        #expect(lines.last == "value keys: \(count) of \(count) documents (100 %)")
        #expect(try connection.query("SELECT to_regclass('idx_doc') IS NULL").bool(0, 0) == true)

        for i in [0, 1, 7, count - 1] {
            let row = try connection.query(
                "SELECT vfields, vkeys FROM docs WHERE id = $1", [.bytes(Array("d\(i)".utf8))], resultFormat: .text)
            let expected = PostgresValueKeys(stored: PostgresRows.stored(IndexEntries.of(fields(i))))
            #expect(row.string(0, 0) == Self.literal(expected.fields))
            #expect(row.string(0, 1) == Self.literal(expected.keys))
        }
    }

    /// A `bytea[]` as PostgreSQL prints it in text (`{"\\x6e",…}`).
    static func literal(_ values: [[UInt8]?]) -> String {
        let hex = values.map { bytes in
            "\"\\\\x" + (bytes ?? []).map { String($0, radix: 16).leftPadded(2) }.joined() + "\""
        }
        return "{" + hex.joined(separator: ",") + "}"
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
