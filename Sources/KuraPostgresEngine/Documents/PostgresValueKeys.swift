import KuraModel
import KuraPostgres
import KuraStore

/// A document's value keys as its `docs` row holds them (`vfields`, `vkeys`: PostgresDocumentSchema): the field of
/// each `idx` entry of kind 0, and that entry's key, in one order.
struct PostgresValueKeys {
    var fields: [[UInt8]?] = []
    var keys: [[UInt8]?] = []

    /// The value keys of `entries`, as `PostgresRows.stored` leaves them (the keys `idx` holds).
    init(stored entries: [IndexEntry]) {
        for entry in entries where entry.kind == IndexEntry.valueKind {
            fields.append(Array(entry.field.utf8))
            keys.append(entry.value)
        }
    }

    /// The two columns' parameters (`bytea[]` each).
    var bindings: [PostgresValue] { [.bytesArray(fields), .bytesArray(keys)] }

    /// Several documents' value keys for one statement that writes many rows: PostgreSQL's arrays cannot hold
    /// arrays of different lengths, so both are flat, and each document has the 1-based bounds of its part, which
    /// the statement slices out (`($3::bytea[])[u.s:u.e]`; an empty document has `e = s - 1`).
    struct Columns {
        var starts: [Int64?] = [], ends: [Int64?] = []
        var fields: [[UInt8]?] = [], keys: [[UInt8]?] = []

        mutating func add(stored entries: [IndexEntry]) {
            let document = PostgresValueKeys(stored: entries)
            starts.append(Int64(fields.count + 1))
            fields += document.fields
            keys += document.keys
            ends.append(Int64(fields.count))
        }

        /// The bounds (`bigint[]` each), then the fields and keys (`bytea[]` each).
        var bindings: [PostgresValue] { [.intArray(starts), .intArray(ends), .bytesArray(fields), .bytesArray(keys)] }
    }
}

extension PostgresValueKeys {
    /// Documents per statement of `fill`.
    static let fillChunk: Int64 = 2000

    /// Schema step 101's rewrite of every `docs` row: its value keys, computed from its data the way a write
    /// computes them (`IndexEntries.of`), in chunks of `fillChunk` documents in `rid` order, reporting progress
    /// whenever another tenth is done; then drops `idx_doc`, the index the keys replace.
    @Sendable static func fill(_ connection: PostgresConnection, progress: (String) -> Void) throws {
        let total = try connection.query("SELECT count(*) FROM docs").int(0, 0) ?? 0
        if total > 0 { progress("rewriting \(total) documents with their value keys (schema step 101)") }
        var after: Int64 = 0
        var done: Int64 = 0
        while true {
            let rows = try connection.query(
                "SELECT rid, data FROM docs WHERE rid > $1 ORDER BY rid LIMIT $2", [.int(after), .int(fillChunk)],
                resultFormat: .binary)
            if rows.rowCount == 0 { break }
            var rids: [Int64?] = []
            var columns = Columns()
            for row in 0..<rows.rowCount {
                let rid = try rows.int(row, 0) ?? 0
                let fields = try PostgresRows.fields(rows.bytes(row, 1) ?? [], of: "docs row \(rid)")
                rids.append(rid)
                columns.add(stored: PostgresRows.stored(IndexEntries.of(fields)))
                after = rid
            }
            try connection.query(
                """
                UPDATE docs d SET vfields = ($3::bytea[])[u.s:u.e], vkeys = ($4::bytea[])[u.s:u.e]
                FROM unnest($5::bigint[], $1::bigint[], $2::bigint[]) AS u(rid, s, e) WHERE d.rid = u.rid
                """, columns.bindings + [.intArray(rids)])
            let tenthsBefore = done * 10 / max(total, 1)
            done += Int64(rows.rowCount)
            if done * 10 / max(total, 1) > tenthsBefore || rows.rowCount < fillChunk {
                progress("value keys: \(done) of \(total) documents (\(done * 100 / max(total, done, 1)) %)")
            }
        }
        try connection.execute("DROP INDEX idx_doc")
    }
}
