import KuraCore
import KuraModel

/// A value during rule evaluation: JSON's values plus paths and timestamps.
///
/// Document data stays a `JSONObject` (`RuleMap.json`) and is converted one level at a time as rules read it,
/// so a rule that never looks at the data costs nothing per request.
enum RuleValue: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case list([RuleValue])
    case map(RuleMap)
    case path([String])
    /// Microseconds since the Unix epoch.
    case timestamp(Int64)

    init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .int(value)
        case .double(let value): self = .float(value)
        case .string(let value): self = .string(value)
        case .array(let elements): self = .list(elements.map(RuleValue.init))
        case .object(let object): self = .map(.json(object))
        }
    }

    /// The type name used by `is` and in error messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .string: "string"
        case .list: "list"
        case .map: "map"
        case .path: "path"
        case .timestamp: "timestamp"
        }
    }

    func isType(_ type: RuleType) -> Bool {
        switch (type, self) {
        case (.number, .int), (.number, .float): true
        default: type.rawValue == typeName
        }
    }

    /// Exact order of an integer and a double (-1, 0, 1; NaN is unordered: 2), never rounding the integer: beyond
    /// 2^53 `Double(a)` would make `9007199254740993 == 9007199254740992.0` true. The store compares the same way
    /// (`ValueOrdering.compare`), so rules and queries agree on which numbers are equal.
    static func compare(_ integer: Int64, _ double: Double) -> Int {
        if double.isNaN { return 2 }
        if double >= 9_223_372_036_854_775_808.0 { return -1 }  // 2^63: above every Int64
        if double < -9_223_372_036_854_775_808.0 { return 1 }
        let floor = double.rounded(.down)
        let whole = Int64(floor)  // in range: checked above
        if integer != whole { return integer < whole ? -1 : 1 }
        return double > floor ? -1 : 0
    }

    /// Equality as rules see it: `1 == 1.0`, maps compare regardless of member order, strings, paths and map keys
    /// by UTF-8 bytes (docs/api.md, "Identity": `"が"` and `"か\u{3099}"` differ, as the document IDs do).
    static func equal(_ lhs: RuleValue, _ rhs: RuleValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.float(let a), .float(let b)): a == b
        case (.int(let a), .float(let b)): compare(a, b) == 0
        case (.float(let a), .int(let b)): compare(b, a) == 0
        case (.string(let a), .string(let b)): a.bytesEqual(b)
        case (.timestamp(let a), .timestamp(let b)): a == b
        case (.path(let a), .path(let b)): a.bytesEqual(b)
        case (.list(let a), .list(let b)): a.count == b.count && zip(a, b).allSatisfy { equal($0, $1) }
        case (.map(let a), .map(let b)):
            a.count == b.count && a.keys.allSatisfy { key in b[key].map { equal(a[key]!, $0) } ?? false }
        default: false
        }
    }
}

/// A map value: either a document's JSON object (read lazily) or members built by the rules.
enum RuleMap: Sendable {
    case json(JSONObject)
    case members([(key: String, value: RuleValue)])

    subscript(key: String) -> RuleValue? {
        switch self {
        case .json(let object): object[key].map(RuleValue.init)
        case .members(let members): members.first { $0.key.bytesEqual(key) }?.value
        }
    }

    func contains(_ key: String) -> Bool {
        switch self {
        case .json(let object): object.position(of: key) != nil
        case .members(let members): members.contains { $0.key.bytesEqual(key) }
        }
    }

    var keys: [String] {
        switch self {
        case .json(let object): object.keys
        case .members(let members): members.map(\.key)
        }
    }

    var values: [RuleValue] {
        switch self {
        case .json(let object): object.values.map(RuleValue.init)
        case .members(let members): members.map(\.value)
        }
    }

    var count: Int {
        switch self {
        case .json(let object): object.count
        case .members(let members): members.count
        }
    }
}

/// An error while evaluating a condition; it makes that `allow` false. The message never contains data values.
struct RuleEvaluationError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
