/// A value bound to a statement parameter. Integers, floats, booleans and bytes travel in binary form with their
/// type; text travels untyped (OID 0), so the server infers the type from the statement (`$1::jsonb` works).
public enum PostgresValue: Sendable, Equatable {
    case null
    case text(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case bytes([UInt8])
    /// A one-dimensional `bigint[]` (nil elements are NULL), in binary form: one parameter for many rows
    /// (`unnest($1::bigint[])`).
    case intArray([Int64?])
    /// A one-dimensional `bytea[]` (nil elements are NULL), in binary form.
    case bytesArray([[UInt8]?])
}

extension PostgresValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(nilLiteral: ()) { self = .null }
}

/// The wire form of a parameter: type OID, format (0 text, 1 binary) and bytes (nil for NULL).
struct EncodedParameter {
    var type: UInt32
    var format: Int32
    var bytes: [UInt8]?

    init(_ value: PostgresValue) {
        switch value {
        case .null:
            self.init(type: 0, format: 0, bytes: nil)
        case .text(let string):
            self.init(type: 0, format: 0, bytes: Array(string.utf8))
        case .int(let int):
            self.init(type: PostgresType.int8, format: 1, bytes: bigEndianBytes(UInt64(bitPattern: int)))
        case .double(let double):
            self.init(type: PostgresType.float8, format: 1, bytes: bigEndianBytes(double.bitPattern))
        case .bool(let bool):
            self.init(type: PostgresType.bool, format: 1, bytes: [bool ? 1 : 0])
        case .bytes(let bytes):
            self.init(type: PostgresType.bytea, format: 1, bytes: bytes)
        case .intArray(let values):
            self.init(type: PostgresType.int8Array, format: 1, bytes: binaryInt8Array(values))
        case .bytesArray(let values):
            self.init(
                type: PostgresType.byteaArray, format: 1, bytes: binaryArray(elementType: PostgresType.bytea, values))
        }
    }

    init(type: UInt32, format: Int32, bytes: [UInt8]?) {
        self.type = type
        self.format = format
        self.bytes = bytes
    }
}

/// The built-in type OIDs the wrapper encodes and decodes (pg_type.oid; stable across PostgreSQL versions).
public enum PostgresType {
    public static let bool: UInt32 = 16
    public static let bytea: UInt32 = 17
    public static let int8: UInt32 = 20
    public static let int2: UInt32 = 21
    public static let int4: UInt32 = 23
    public static let text: UInt32 = 25
    public static let oid: UInt32 = 26
    public static let xid8: UInt32 = 5069
    public static let float4: UInt32 = 700
    public static let float8: UInt32 = 701
    public static let byteaArray: UInt32 = 1001
    public static let int8Array: UInt32 = 1016
}

/// PostgreSQL's binary array form (`array_recv`): dimensions, a has-nulls flag, the element type, then each
/// element as a length (-1: NULL) and its bytes. An empty array has no dimensions. Written into one buffer, without
/// an allocation per element (a create batch binds arrays of a thousand elements and more).
func binaryArray(elementType: UInt32, _ elements: [[UInt8]?]) -> [UInt8] {
    var out = binaryArrayHeader(
        elementType: elementType, count: elements.count, hasNulls: elements.contains(where: { $0 == nil }),
        capacity: elements.reduce(0) { $0 + 4 + ($1?.count ?? 0) })
    for element in elements {
        guard let element else {
            out.appendBigEndian(Int32(-1))
            continue
        }
        out.appendBigEndian(Int32(element.count))
        out += element
    }
    return out
}

/// `binaryArray` of `bigint`s.
func binaryInt8Array(_ values: [Int64?]) -> [UInt8] {
    var out = binaryArrayHeader(
        elementType: PostgresType.int8, count: values.count, hasNulls: values.contains(where: { $0 == nil }),
        capacity: values.count * 12)
    for value in values {
        guard let value else {
            out.appendBigEndian(Int32(-1))
            continue
        }
        out.appendBigEndian(Int32(8))
        out.appendBigEndian(value)
    }
    return out
}

/// The header of `binaryArray`, in a buffer with room for `capacity` more bytes.
private func binaryArrayHeader(elementType: UInt32, count: Int, hasNulls: Bool, capacity: Int) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(20 + capacity)
    out.appendBigEndian(Int32(count == 0 ? 0 : 1))
    out.appendBigEndian(Int32(hasNulls ? 1 : 0))
    out.appendBigEndian(elementType)
    if count == 0 { return out }
    out.appendBigEndian(Int32(count))
    out.appendBigEndian(Int32(1))
    return out
}

func bigEndianBytes(_ value: UInt64) -> [UInt8] {
    var out: [UInt8] = []
    out.appendBigEndian(value)
    return out
}

extension [UInt8] {
    /// Appends `value`'s bytes, most significant first (network order).
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}

func integer(bigEndian bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    bytes.reduce(0) { $0 << 8 | UInt64($1) }
}
