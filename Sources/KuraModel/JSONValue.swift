/// A JSON value with the distinctions a document database needs: integers are exact 64-bit values separate from
/// doubles, and object members keep their order. Strings and keys are equal when their UTF-8 bytes are
/// (`ByteIdentity.swift`), never by `String`'s canonical equivalence.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The object members, or `nil` when this is not an object.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The elements, or `nil` when this is not an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The string, or `nil` when this is not a string.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// `true` for `.int` and `.double`.
    public var isNumber: Bool {
        switch self {
        case .int, .double: true
        default: false
        }
    }

    /// Nesting depth: scalars are 0, `[]` and `{}` are 1, `[[1]]` is 2.
    public var depth: Int {
        switch self {
        case .array(let elements): 1 + (elements.map(\.depth).max() ?? 0)
        case .object(let object): 1 + (object.values.map(\.depth).max() ?? 0)
        default: 0
        }
    }

    /// Same case and same payload; strings by UTF-8 bytes.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let l), .bool(let r)): l == r
        case (.int(let l), .int(let r)): l == r
        case (.double(let l), .double(let r)): l == r
        case (.string(let l), .string(let r)): l.bytesEqual(r)
        case (.array(let l), .array(let r)): l == r
        case (.object(let l), .object(let r)): l == r
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0 as UInt8)
        case .bool(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .int(let value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case .double(let value):
            hasher.combine(3 as UInt8)
            hasher.combine(value)
        case .string(let value):
            hasher.combine(4 as UInt8)
            value.hashBytes(into: &hasher)
        case .array(let elements):
            hasher.combine(5 as UInt8)
            hasher.combine(elements)
        case .object(let object):
            hasher.combine(6 as UInt8)
            hasher.combine(object)
        }
    }
}

/// A JSON object: members in insertion order, unique keys, lookup by key. Keys are distinct when their UTF-8 bytes
/// are: `"café"` spelled with U+00E9 and with `e` + U+0301 are two members, as in Firestore.
///
/// Small objects are searched linearly; larger ones keep a key index so lookups and inserts stay O(1).
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// Objects with more members than this keep a key → position index.
    private static let indexThreshold = 12

    /// The members in order.
    public private(set) var members: [(key: String, value: JSONValue)] = []
    private var index: [ByteKey: Int]? = nil

    /// An empty object.
    public init() {}

    /// An object from members in order; a later duplicate key replaces the earlier value.
    public init(_ members: [(String, JSONValue)]) {
        self.members.reserveCapacity(members.count)
        for (key, value) in members { self[key] = value }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    /// Number of members.
    public var count: Int { members.count }
    /// `true` when there are no members.
    public var isEmpty: Bool { members.isEmpty }
    /// The keys in order.
    public var keys: [String] { members.map(\.key) }
    /// The values in order.
    public var values: [JSONValue] { members.map(\.value) }

    /// Position of `key`, if present.
    public func position(of key: String) -> Int? {
        if let index { return index[ByteKey(key)] }
        return members.firstIndex { $0.key.bytesEqual(key) }
    }

    /// Reads, replaces, appends (new keys go last) or removes (assigning `nil`) a member.
    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { members[$0].value } }
        set {
            if let position = position(of: key) {
                if let newValue {
                    members[position].value = newValue
                } else {
                    members.remove(at: position)
                    if index != nil { rebuildIndex() }
                }
            } else if let newValue {
                members.append((key, newValue))
                if index != nil {
                    index?[ByteKey(key)] = members.count - 1
                } else if members.count > Self.indexThreshold {
                    rebuildIndex()
                }
            }
        }
    }

    /// Appends a member whose key is known to be absent; returns `false` (and changes nothing) if it is present.
    @discardableResult
    public mutating func appendIfAbsent(_ key: String, _ value: JSONValue) -> Bool {
        if position(of: key) != nil { return false }
        self[key] = value
        return true
    }

    private mutating func rebuildIndex() {
        var built: [ByteKey: Int] = [:]
        built.reserveCapacity(members.count)
        for (position, member) in members.enumerated() { built[ByteKey(member.key)] = position }
        index = built
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        members.makeIterator()
    }

    /// Objects are equal when they have the same members (keys by bytes) in the same order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for (l, r) in zip(lhs.members, rhs.members) where !l.key.bytesEqual(r.key) || l.value != r.value {
            return false
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for member in members {
            member.key.hashBytes(into: &hasher)
            hasher.combine(member.value)
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
}
