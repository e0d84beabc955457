import CPostgres

/// How the server should send result columns: text (PostgreSQL's output format, what `psql` shows) or binary
/// (the types' send format; cheaper for integers and bytes).
public enum PostgresResultFormat: Int32, Sendable {
    case text = 0
    case binary = 1
}

/// The answer to one statement: an owned `PGresult*`, cleared in `deinit`. Immutable, so it may be read from any
/// thread once returned. Row and column indexes are 0-based.
public final class PostgresResult: @unchecked Sendable {
    // `@unchecked`: the `PGresult` is never changed after it is received, and libpq allows reading it from any thread.
    private let handle: OpaquePointer

    /// Takes ownership of `handle`, which must be a successful result (`PGRES_COMMAND_OK` or `PGRES_TUPLES_OK`).
    init(owning handle: OpaquePointer) {
        self.handle = handle
    }

    deinit { PQclear(handle) }

    /// The number of rows returned.
    public var rowCount: Int { Int(PQntuples(handle)) }
    /// The number of columns per row.
    public var columnCount: Int { Int(PQnfields(handle)) }
    /// Rows inserted, updated or deleted by the statement (0 for statements that report no count).
    public var affectedRows: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    /// The name of `column` as the statement labelled it.
    public func columnName(_ column: Int) -> String { String(cString: PQfname(handle, Int32(column))) }
    /// The index of the column labelled `name`, if any.
    public func columnIndex(_ name: String) -> Int? {
        let index = PQfnumber(handle, name)
        return index < 0 ? nil : Int(index)
    }
    /// The type OID of `column` (see `PostgresType`).
    public func columnType(_ column: Int) -> UInt32 { PQftype(handle, Int32(column)) }

    /// True when the value at (`row`, `column`) is SQL NULL.
    public func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(handle, Int32(row), Int32(column)) == 1 }

    /// The raw bytes of a value as sent (text or binary form), nil for NULL.
    public func bytes(_ row: Int, _ column: Int) -> [UInt8]? {
        withBytes(row, column) { Array($0) }
    }

    /// A text-like value (`text`, `varchar`, `json`, …, or any value of a text-format result), nil for NULL.
    public func string(_ row: Int, _ column: Int) -> String? {
        withBytes(row, column) { String(decoding: $0, as: UTF8.self) }
    }

    /// An integer value (`int2`, `int4`, `int8`, `oid`, `xid8`), nil for NULL.
    public func int(_ row: Int, _ column: Int) throws -> Int64? {
        let decoded: Int64?? = withBytes(row, column) { bytes -> Int64? in
            guard isBinary(column) else { return Int64(String(decoding: bytes, as: UTF8.self)) }
            let value = integer(bigEndian: bytes)
            switch bytes.count {
            case 2: return Int64(Int16(truncatingIfNeeded: value))
            case 4:
                return columnType(column) == PostgresType.oid ? Int64(value) : Int64(Int32(truncatingIfNeeded: value))
            case 8: return Int64(bitPattern: value)
            default: return nil
            }
        }
        guard let decoded else { return nil }
        guard let decoded else { throw mismatch(row, column, "an integer") }
        return decoded
    }

    /// A `float8`/`float4` (or, in text form, any number) value, nil for NULL.
    public func double(_ row: Int, _ column: Int) throws -> Double? {
        let decoded: Double?? = withBytes(row, column) { bytes -> Double? in
            guard isBinary(column) else { return Double(String(decoding: bytes, as: UTF8.self)) }
            switch bytes.count {
            case 4: return Double(Float(bitPattern: UInt32(integer(bigEndian: bytes))))
            case 8: return Double(bitPattern: integer(bigEndian: bytes))
            default: return nil
            }
        }
        guard let decoded else { return nil }
        guard let decoded else { throw mismatch(row, column, "a number") }
        return decoded
    }

    /// A `bool` value, nil for NULL.
    public func bool(_ row: Int, _ column: Int) throws -> Bool? {
        let decoded: Bool?? = withBytes(row, column) { bytes -> Bool? in
            guard bytes.count == 1 else { return nil }
            switch bytes[0] {
            case 1, UInt8(ascii: "t"): return true
            case 0, UInt8(ascii: "f"): return false
            default: return nil
            }
        }
        guard let decoded else { return nil }
        guard let decoded else { throw mismatch(row, column, "a boolean") }
        return decoded
    }

    private func isBinary(_ column: Int) -> Bool { PQfformat(handle, Int32(column)) == 1 }

    private func withBytes<R>(_ row: Int, _ column: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        precondition(row >= 0 && row < rowCount && column >= 0 && column < columnCount, "no such row or column")
        if isNull(row, column) { return nil }
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        let start = UnsafeRawPointer(PQgetvalue(handle, Int32(row), Int32(column))!)
        return body(UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: length))
    }

    private func mismatch(_ row: Int, _ column: Int, _ expected: String) -> PostgresError {
        PostgresError(
            kind: .protocolViolation,
            message: "row \(row) column \(columnName(column)) (type \(columnType(column))) is not \(expected)")
    }
}
