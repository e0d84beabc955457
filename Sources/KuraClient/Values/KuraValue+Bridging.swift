import Foundation
internal import KuraModel

/// Firebase's `[String: Any]` shapes ⇄ `KuraValue`: what `data()` and `get(_:)` return, and what the writes
/// accept, so `data["name"] as? String`, `as? Int`, `as? Double`, `as? Bool`, `as? Timestamp`, `as? [String: Any]`
/// and `as? [Any]` work as they do with Firestore.
extension KuraValue {
    /// The value as Firestore's iOS SDK gives it: `NSNull`, `Bool`, `NSNumber` for numbers (so both `as? Int` and
    /// `as? Double` work, and `as? Int` is `nil` for `2.5`), `String`, `Timestamp` for a time in the server's
    /// format, `[Any]`, `[String: Any]`.
    public var bridged: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let value): return value
        case .integer(let value): return NSNumber(value: value)
        case .double(let value): return NSNumber(value: value)
        case .string(let value): return Timestamp(rfc3339: value) ?? value
        case .array(let values): return values.map(\.bridged)
        case .map(let fields): return fields.mapValues(\.bridged)
        case .transform(let transform): return transform
        }
    }

    /// A value from Firebase-style data: `KuraValue`s and `FieldValue` sentinels as they are; `nil`, `NSNull` and
    /// `Optional.none`; `Bool`; Swift's integer types, `Double`, `Float`, `NSNumber`; `String`, `Substring`;
    /// `Date` and `Timestamp` (stored as the server's RFC 3339 text); arrays and `[String: Any]` dictionaries of
    /// these. Anything else throws `.invalidArgument` naming the field and the type, since documents hold JSON.
    public init(bridging value: Any?) throws {
        self = try Self.bridge(value, at: "")
    }

    /// `value` at `path` (a dotted field path, for the error message).
    static func bridge(_ value: Any?, at path: String) throws -> KuraValue {
        guard let value, let unwrapped = OptionalBox.unwrap(value) else { return .null }
        func fail(_ why: String) -> KuraError {
            KuraError.invalidArgument(
                "\(path.isEmpty ? "the value" : "field '\(path)'"): \(why) (documents hold JSON: null, Bool, "
                    + "numbers, String, Date/Timestamp, arrays and [String: Any])")
        }
        func checked(_ double: Double) throws -> KuraValue {
            guard double.isFinite else { throw fail("\(double) is not a finite number") }
            return .double(double)
        }
        switch unwrapped {
        case let value as KuraValue: return value
        case is NSNull: return .null
        case let number as NSNumber where type(of: unwrapped) is NSNumber.Type:
            return try bridge(number: number, fail: fail)
        // Exact types first: Apple platforms bridge numbers through NSNumber, where `1 as? Bool` can succeed.
        case let value as Bool where type(of: unwrapped) == Bool.self: return .bool(value)
        case let value as Int: return .integer(Int64(value))
        case let value as Int8: return .integer(Int64(value))
        case let value as Int16: return .integer(Int64(value))
        case let value as Int32: return .integer(Int64(value))
        case let value as Int64: return .integer(value)
        case let value as UInt: return try unsigned(UInt64(value), fail)
        case let value as UInt8: return .integer(Int64(value))
        case let value as UInt16: return .integer(Int64(value))
        case let value as UInt32: return .integer(Int64(value))
        case let value as UInt64: return try unsigned(value, fail)
        case let value as Double: return try checked(value)
        case let value as Float: return try checked(Double(value))
        case let value as String: return .string(value)
        case let value as Substring: return .string(String(value))
        case let value as Date: return KuraValue(value)
        case let value as Timestamp: return KuraValue(value)
        case let values as [Any?]:
            return .array(try values.enumerated().map { try bridge($0.element, at: "\(path)[\($0.offset)]") })
        case let fields as [String: Any?]:
            var result: DocumentData = [:]
            for (name, field) in fields {
                result[name] = try bridge(field, at: path.isEmpty ? name : "\(path).\(name)")
            }
            return .map(result)
        case is [AnyHashable: Any]:
            throw fail("a dictionary's keys must be Strings")
        default:
            throw fail("a value of type \(type(of: unwrapped)) cannot be stored")
        }
    }

    private static func unsigned(_ value: UInt64, _ fail: (String) -> KuraError) throws -> KuraValue {
        guard let exact = Int64(exactly: value) else { throw fail("\(value) does not fit in a 64-bit integer") }
        return .integer(exact)
    }

    /// An `NSNumber`: a boolean one as `.bool`, an integral type as `.integer`, a floating one as `.double`.
    private static func bridge(number: NSNumber, fail: (String) -> KuraError) throws -> KuraValue {
        let type = String(cString: number.objCType)
        if isBoolean(number, type: type) { return .bool(number.boolValue) }
        if type == "f" || type == "d" {
            guard number.doubleValue.isFinite else { throw fail("\(number) is not a finite number") }
            return .double(number.doubleValue)
        }
        if type == "Q" || type == "L" || type == "I" {
            return try unsigned(number.uint64Value, fail)
        }
        return .integer(number.int64Value)
    }
}

/// Whether `number` holds a boolean (`JSONSerialization`'s `true`, `NSNumber(value: true)`).
private func isBoolean(_ number: NSNumber, type: String) -> Bool {
    #if canImport(Darwin)
        return CFGetTypeID(number) == CFBooleanGetTypeID()
    #else
        // swift-corelibs-foundation stores booleans as `char`; an `Int8` NSNumber is rare enough to read as one.
        return type == "c" || type == "B"
    #endif
}

/// Looks through `Optional`s hidden in an `Any` (`let name: String? = nil; ["name": name]`).
private enum OptionalBox {
    /// The wrapped value, or `nil` for `Optional.none` at any depth.
    static func unwrap(_ value: Any) -> Any? {
        guard let optional = value as? any OptionalProtocol else { return value }
        return optional.wrappedAny.flatMap(unwrap)
    }
}

private protocol OptionalProtocol {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalProtocol {
    fileprivate var wrappedAny: Any? { self.map { $0 as Any } }
}

extension DocumentData {
    /// Firebase-style fields (`[String: Any]`) as document data; throws `.invalidArgument` for a value JSON cannot
    /// hold.
    public init(bridging fields: [String: Any]) throws {
        self = [:]
        for (name, value) in fields { self[name] = try KuraValue.bridge(value, at: name) }
    }

    /// The fields as Firebase's `[String: Any]` (see `KuraValue.bridged`).
    public var bridged: [String: Any] { mapValues(\.bridged) }
}
