import KuraCore
import KuraSQLite

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

    /// Order-preserving key of a path: its segments as `IndexKey` strings, so byte order is segment-wise order.
    static func pathKey(_ segments: [String]) -> [UInt8] {
        var out: [UInt8] = []
        for segment in segments { IndexKey.appendString(segment, to: &out) }
        return out
    }
}
