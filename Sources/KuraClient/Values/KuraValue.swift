import Foundation
internal import KuraModel

/// The fields of a document: field names to values. `["title": "milk", "done": false]` is one.
public typealias DocumentData = [String: KuraValue]

/// A value stored in a document: JSON's kinds, with integers (exact to 64 bits) apart from doubles. Write
/// literals directly (`["title": "milk", "done": false, "tags": ["a"], "n": 3]`); times are RFC 3339 strings
/// (`KuraValue(Date())`, `dateValue`). Reading data never yields `.transform`: that case only carries a
/// `FieldValue` (server timestamp, increment…) into a write.
public enum KuraValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([KuraValue])
    case map([String: KuraValue])
    /// A server-side transform for writes, made by `FieldValue`.
    indirect case transform(FieldTransform)

    /// A number, an integer when it is one.
    public init(_ value: Int) { self = .integer(Int64(value)) }
    public init(_ value: Int64) { self = .integer(value) }
    public init(_ value: Double) { self = .double(value) }
    public init(_ value: String) { self = .string(value) }
    public init(_ value: Bool) { self = .bool(value) }
    /// A time, stored as the RFC 3339 string the server uses for its own times (microsecond precision).
    public init(_ date: Date) { self = .string(RFC3339.string(from: date)) }
    public init(_ values: [KuraValue]) { self = .array(values) }
    public init(_ fields: DocumentData) { self = .map(fields) }
    /// Any `Encodable` value, encoded as `setData(from:)` would encode it.
    public init<T: Encodable>(encoding value: T) throws { self = try DocumentCoding.encodeValue(value) }

    // MARK: Reading

    public var isNull: Bool { self == .null }
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    public var arrayValue: [KuraValue]? { if case .array(let value) = self { value } else { nil } }
    public var mapValue: DocumentData? { if case .map(let value) = self { value } else { nil } }

    /// The integer, or a double with no fractional part that fits in 64 bits.
    public var int64Value: Int64? {
        switch self {
        case .integer(let value): return value
        case .double(let value): return Int64(exactly: value)
        default: return nil
        }
    }

    /// `int64Value` as an `Int`.
    public var intValue: Int? { int64Value.flatMap { Int(exactly: $0) } }

    /// Any number as a `Double` (large integers may round).
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// An RFC 3339 time string (as `FieldValue.serverTimestamp()` stores) as a `Date`.
    public var dateValue: Date? { stringValue.flatMap(RFC3339.date(from:)) }

    /// A member of a map; `nil` for other kinds or a missing key.
    public subscript(key: String) -> KuraValue? { mapValue?[key] }

    /// An element of an array; `nil` for other kinds or an index out of range.
    public subscript(index: Int) -> KuraValue? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }
}

extension KuraValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: KuraValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, KuraValue)...) {
        self = .map(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension KuraValue: CustomStringConvertible {
    /// The value as JSON (a transform shows as its name).
    public var description: String {
        if case .transform(let transform) = self { return "FieldValue.\(transform)" }
        return (try? String(decoding: JSONText.encode(self), as: UTF8.self)) ?? "<invalid>"
    }
}

extension KuraValue: Codable {
    /// Decodes any JSON value: `null`, booleans, integers (when exact), doubles, strings, arrays and objects.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([KuraValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: KuraValue].self) {
            self = .map(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .map(let value): try container.encode(value)
        case .transform:
            throw EncodingError.invalidValue(
                self, .init(codingPath: encoder.codingPath, debugDescription: "FieldValue sentinels are not data"))
        }
    }
}
