/// Reading a JSON object of a request: members looked up by name with typed accessors that refuse a wrong shape
/// with the member's name (a `ValidationError` with `code`: `INVALID_ARGUMENT`, `INVALID_QUERY`…). The server reads
/// request bodies with it and the wire formats of KuraModel (`Write(json:)`) are decoded with it.
public struct JSONMembers: Sendable {
    /// The object read.
    public let object: JSONObject
    /// The error code a malformed member gets.
    public let code: ErrorCode

    /// `value`'s members; throws unless it is an object (`context` names it in the message).
    public init(_ value: JSONValue, code: ErrorCode, context: String = "the body") throws {
        guard let object = value.objectValue else {
            throw ValidationError(code, "\(context) must be a JSON object")
        }
        self.object = object
        self.code = code
    }

    /// Fails on any member not in `known`, so that typos do not pass silently.
    public func allowOnly(_ known: Set<String>, in context: String = "the body") throws {
        // By bytes, as `object[key]` finds members: `Set.contains` would accept a canonically equivalent spelling
        // that no lookup then reads.
        for key in object.keys where !known.contains(where: { $0.bytesEqual(key) }) {
            throw ValidationError(code, "unknown field '\(key)' in \(context)")
        }
    }

    /// The member named `key`, as it is.
    public subscript(_ key: String) -> JSONValue? { object[key] }

    /// An object member; `nil` when missing or `null`.
    public func object(_ key: String) throws -> JSONObject? {
        guard let value = object[key], value != .null else { return nil }
        guard let object = value.objectValue else { throw wrong(key, "an object") }
        return object
    }

    /// A string member; `nil` when missing or `null`.
    public func string(_ key: String) throws -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let string = value.stringValue else { throw wrong(key, "a string") }
        return string
    }

    /// An array member; `nil` when missing or `null`.
    public func array(_ key: String) throws -> [JSONValue]? {
        guard let value = object[key], value != .null else { return nil }
        guard let array = value.arrayValue else { throw wrong(key, "an array") }
        return array
    }

    /// A `true`/`false` member; `nil` when missing or `null`.
    public func bool(_ key: String) throws -> Bool? {
        guard let value = object[key], value != .null else { return nil }
        guard case .bool(let flag) = value else { throw wrong(key, "true or false") }
        return flag
    }

    /// An integer member (a double with an exact integer value below 9e15 counts); `nil` when missing or `null`.
    public func integer(_ key: String) throws -> Int64? {
        guard let value = object[key], value != .null else { return nil }
        switch value {
        case .int(let n): return n
        case .double(let d) where d.rounded() == d && abs(d) < 9e15: return Int64(d)
        default: throw wrong(key, "an integer")
        }
    }

    private func wrong(_ key: String, _ expected: String) -> ValidationError {
        ValidationError(code, "'\(key)' must be \(expected)")
    }
}
