import CSQLite
import KuraCore
import KuraModel
import KuraSQLite
import KuraStore

/// SQL functions Kura registers on every connection.
///
/// `kura_field(data, field)`: the `IndexKey` encoding of the value at field path `field` (canonical dotted form)
/// in the JSON document `data`, or NULL when absent. Used to sort by secondary orderBy fields, which the
/// single-field index cannot provide per document.
///
/// `kura_scan(counter, budget, row)`: counts one row visited by a query's driver into the `SQLiteScanCounter`
/// whose handle is `counter` and returns 1; past `budget` rows it fails the statement instead (a query that would
/// scan too much without a fitting index). `row` only ties the term to the driver table, so SQLite evaluates it
/// once per driver row.
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
        let scan = sqlite3_create_function_v2(
            db, "kura_scan", 3, SQLITE_UTF8, nil,
            { context, count, arguments in
                guard let context, count == 3, let arguments, let handle = arguments[0], let budget = arguments[1],
                    let pointer = UnsafeRawPointer(bitPattern: Int(sqlite3_value_int64(handle)))
                else { return }
                let counter = Unmanaged<SQLiteScanCounter>.fromOpaque(pointer).takeUnretainedValue()
                counter.rows += 1
                if counter.rows > sqlite3_value_int64(budget) {
                    sqlite3_result_error(context, "kura: query scan budget exceeded", -1)
                } else {
                    sqlite3_result_int(context, 1)
                }
            }, nil, nil, nil)
        guard scan == SQLITE_OK else { throw SQLiteError(code: scan, message: "registering kura_scan") }
    }
}

/// `ScanCounter` as `kura_scan` sees it: SQL refers to the counter by its address, so the statement that uses it
/// must finish (or be reset) while the caller still holds the counter.
typealias SQLiteScanCounter = ScanCounter

extension ScanCounter {
    /// The value SQL passes to `kura_scan`.
    var handle: Int64 { Int64(Int(bitPattern: Unmanaged.passUnretained(self).toOpaque())) }
}
