import CSQLite
import KuraCore
import KuraSQLite

/// SQL functions Kura registers on every connection.
///
/// `kura_field(data, field)`: the `IndexKey` encoding of the value at field path `field` (canonical dotted form)
/// in the JSON document `data`, or NULL when absent. Used to sort by secondary orderBy fields, which the
/// single-field index cannot provide per document.
enum SQLiteFunctions {
    static func register(on db: OpaquePointer) throws {
        let rc = sqlite3_create_function_v2(
            db, "kura_field", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, count, arguments in
                guard let context, count == 2, let arguments, let data = arguments[0], let field = arguments[1]
                else { return }
                let length = Int(sqlite3_value_bytes(data))
                guard let pointer = sqlite3_value_blob(data), let fieldText = sqlite3_value_text(field) else {
                    sqlite3_result_null(context)
                    return
                }
                let bytes = UnsafeRawBufferPointer(start: pointer, count: length).bindMemory(to: UInt8.self)
                guard case .object(let object)? = try? JSONValue.parse(bytes),
                    let path = try? FieldPath(String(cString: fieldText)),
                    let value = object.value(at: path)
                else {
                    sqlite3_result_null(context)
                    return
                }
                let key = IndexKey.encode(value)
                key.withUnsafeBytes { buffer in
                    sqlite3_result_blob(context, buffer.baseAddress, Int32(buffer.count), kura_sqlite_transient())
                }
            }, nil, nil, nil)
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: "registering kura_field") }
    }
}
