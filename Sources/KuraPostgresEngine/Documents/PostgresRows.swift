import KuraCore
import KuraModel
import KuraPostgres
import KuraStore

/// Conversions between PostgreSQL rows (binary results) and store values.
enum PostgresRows {
    /// A name as the tables hold it: its UTF-8 bytes.
    static func name(_ text: String) -> PostgresValue { .bytes(Array(text.utf8)) }

    /// A name column read back.
    static func text(_ result: PostgresResult, _ row: Int, _ column: Int) -> String {
        result.string(row, column) ?? ""
    }

    /// A document from `data, ctime, utime, version` starting at `column`.
    static func document(
        path: DocumentPath, _ result: PostgresResult, _ row: Int, data: Int, ctime: Int, utime: Int, version: Int
    ) throws -> Document {
        guard let bytes = result.bytes(row, data) else {
            throw PostgresError(kind: .protocolViolation, message: "no document data at \(path)")
        }
        return try document(
            path: path, bytes: bytes, ctime: try result.int(row, ctime) ?? 0, utime: try result.int(row, utime) ?? 0,
            version: try result.int(row, version) ?? 0)
    }

    static func document(path: DocumentPath, bytes: [UInt8], ctime: Int64, utime: Int64, version: Int64) throws
        -> Document
    {
        Document(
            path: path, fields: try fields(bytes, of: "\(path)"), createTime: ctime, updateTime: utime,
            version: version)
    }

    /// The fields of a document's stored data (`docs.data`); `what` names the row in the error for corrupt data.
    static func fields(_ bytes: [UInt8], of what: String) throws -> JSONObject {
        guard case .object(let fields) = try JSONValue.parse(bytes, maxDepth: 512) else {
            throw PostgresError(kind: .protocolViolation, message: "corrupt document data at \(what)")
        }
        return fields
    }

    /// The columns `change` reads, in its order.
    static let changeColumns = "seq, path, kind, version, time, ctime, old_utime, old_version, old_data, new_data"

    /// A change-log entry from a row of `changeColumns`.
    static func change(_ result: PostgresResult, _ row: Int) throws -> Change {
        let path = try DocumentPath(text(result, row, 1))
        let kind = Change.Kind(rawValue: Int(try result.int(row, 2) ?? 0)) ?? .updated
        let version = try result.int(row, 3) ?? 0
        let time = try result.int(row, 4) ?? 0
        let ctime = try result.int(row, 5) ?? 0
        var change = Change(
            sequence: try result.int(row, 0) ?? 0, path: path, kind: kind, version: version, time: time)
        if let before = result.bytes(row, 8) {
            change.before = try document(
                path: path, bytes: before, ctime: ctime, utime: try result.int(row, 6) ?? 0,
                version: try result.int(row, 7) ?? 0)
        }
        if let after = result.bytes(row, 9) {
            change.after = try document(path: path, bytes: after, ctime: ctime, utime: time, version: version)
        }
        return change
    }

    /// Longest `idx.value` stored: a B-tree row holds at most about 2.7 kB, so longer `IndexKey` encodings (long
    /// strings, large arrays and maps) are indexed by their first `maxIndexedBytes` bytes, as Firestore indexes
    /// only the first 1,500 bytes of a value. Such values still order correctly unless they share that prefix,
    /// where they tie (and `==` on them matches every value with the prefix).
    static let maxIndexedBytes = 1024

    /// `IndexKey.encode(value)` as `idx` stores it.
    static func indexKey(_ value: JSONValue) -> [UInt8] { indexed(IndexKey.encode(value)) }

    static func indexed(_ key: [UInt8]) -> [UInt8] {
        key.count <= maxIndexedBytes ? key : Array(key.prefix(maxIndexedBytes))
    }

    /// Entries as `idx` stores them (values cut to `maxIndexedBytes`, duplicates the cut made removed).
    static func stored(_ entries: [IndexEntry]) -> [IndexEntry] {
        guard entries.contains(where: { $0.value.count > maxIndexedBytes }) else { return entries }
        var seen: Set<IndexEntry> = []
        return entries.compactMap { entry in
            var entry = entry
            entry.value = indexed(entry.value)
            return seen.insert(entry).inserted ? entry : nil
        }
    }
}
