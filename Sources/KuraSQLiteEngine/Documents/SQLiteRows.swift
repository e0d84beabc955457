import KuraCore
import KuraModel
import KuraSQLite
import KuraStore

/// Conversions between SQLite rows and store values.
enum SQLiteRows {
    /// A document from its `docs` columns.
    static func document(
        path: DocumentPath, data: SQLiteValue, ctime: SQLiteValue, utime: SQLiteValue, version: SQLiteValue
    ) throws -> Document {
        guard let bytes = data.blob, case .object(let fields) = try JSONValue.parse(bytes, maxDepth: 512) else {
            throw SQLiteError(code: 0, message: "corrupt document data at \(path)")
        }
        return Document(
            path: path, fields: fields, createTime: ctime.int ?? 0, updateTime: utime.int ?? 0,
            version: version.int ?? 0)
    }

    /// A change-log entry from `seq, path, kind, version, time, ctime, old_utime, old_version, old_data,
    /// new_data` (entries written before the log kept document states have neither state).
    static func change(_ row: [SQLiteValue]) throws -> Change {
        let path = try DocumentPath(row[1].text ?? "")
        let kind = Change.Kind(rawValue: Int(row[2].int ?? 0)) ?? .updated
        let version = row[3].int ?? 0
        let time = row[4].int ?? 0
        var change = Change(sequence: row[0].int ?? 0, path: path, kind: kind, version: version, time: time)
        if case .blob = row[8] {
            change.before = try document(path: path, data: row[8], ctime: row[5], utime: row[6], version: row[7])
        }
        if case .blob = row[9] {
            change.after = try document(path: path, data: row[9], ctime: row[5], utime: row[4], version: row[3])
        }
        return change
    }
}
