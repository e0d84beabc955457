import KuraCore
import KuraHTTP
import KuraModel

/// Reading JSON request bodies: one object at the top, fields looked up by name with typed accessors that
/// answer 400 with the field's name when the shape is wrong.
struct JSONBody {
    let object: JSONObject
    /// The error code a malformed field gets (`INVALID_ARGUMENT`, `INVALID_QUERY`…).
    let code: ErrorCode

    init(_ request: Request, code: ErrorCode = .invalidArgument) throws {
        guard !request.body.isEmpty else { throw APIError.badRequest("the request needs a JSON body", code: code) }
        try self.init(try JSONValue.parse(request.body), code: code)
    }

    init(_ value: JSONValue, code: ErrorCode, context: String = "the body") throws {
        guard let object = value.objectValue else {
            throw APIError.badRequest("\(context) must be a JSON object", code: code)
        }
        self.object = object
        self.code = code
    }

    /// Fails on any member not in `known`, so that typos do not pass silently.
    func allowOnly(_ known: Set<String>, in context: String = "the body") throws {
        // By bytes, as `object[key]` finds members: `Set.contains` would accept a canonically equivalent spelling
        // that no lookup then reads.
        for key in object.keys where !known.contains(where: { $0.bytesEqual(key) }) {
            throw APIError.badRequest("unknown field '\(key)' in \(context)", code: code)
        }
    }

    subscript(_ key: String) -> JSONValue? { object[key] }

    func object(_ key: String) throws -> JSONObject? {
        guard let value = object[key], value != .null else { return nil }
        guard let object = value.objectValue else { throw wrong(key, "an object") }
        return object
    }

    func string(_ key: String) throws -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let string = value.stringValue else { throw wrong(key, "a string") }
        return string
    }

    func array(_ key: String) throws -> [JSONValue]? {
        guard let value = object[key], value != .null else { return nil }
        guard let array = value.arrayValue else { throw wrong(key, "an array") }
        return array
    }

    func bool(_ key: String) throws -> Bool? {
        guard let value = object[key], value != .null else { return nil }
        guard case .bool(let flag) = value else { throw wrong(key, "true or false") }
        return flag
    }

    func integer(_ key: String) throws -> Int64? {
        guard let value = object[key], value != .null else { return nil }
        switch value {
        case .int(let n): return n
        case .double(let d) where d.rounded() == d && abs(d) < 9e15: return Int64(d)
        default: throw wrong(key, "an integer")
        }
    }

    private func wrong(_ key: String, _ expected: String) -> APIError {
        APIError.badRequest("'\(key)' must be \(expected)", code: code)
    }
}
