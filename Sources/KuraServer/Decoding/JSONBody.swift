import KuraCore
import KuraHTTP
import KuraModel

/// Reading JSON request bodies: one object at the top, fields looked up by name with typed accessors that
/// answer 400 with the field's name when the shape is wrong. The reading is KuraModel's `JSONMembers` (which the
/// model's wire formats use too); this throws its refusals as `APIError`s.
struct JSONBody {
    let members: JSONMembers
    /// The object read.
    var object: JSONObject { members.object }
    /// The error code a malformed field gets (`INVALID_ARGUMENT`, `INVALID_QUERY`…).
    var code: ErrorCode { members.code }

    init(_ request: Request, code: ErrorCode = .invalidArgument) throws {
        guard !request.body.isEmpty else { throw APIError.badRequest("the request needs a JSON body", code: code) }
        try self.init(try JSONValue.parse(request.body), code: code)
    }

    init(_ value: JSONValue, code: ErrorCode, context: String = "the body") throws {
        members = try Self.answered { try JSONMembers(value, code: code, context: context) }
    }

    /// Fails on any member not in `known`, so that typos do not pass silently.
    func allowOnly(_ known: Set<String>, in context: String = "the body") throws {
        try Self.answered { try members.allowOnly(known, in: context) }
    }

    subscript(_ key: String) -> JSONValue? { members[key] }

    func object(_ key: String) throws -> JSONObject? { try Self.answered { try members.object(key) } }

    func string(_ key: String) throws -> String? { try Self.answered { try members.string(key) } }

    func array(_ key: String) throws -> [JSONValue]? { try Self.answered { try members.array(key) } }

    func bool(_ key: String) throws -> Bool? { try Self.answered { try members.bool(key) } }

    func integer(_ key: String) throws -> Int64? { try Self.answered { try members.integer(key) } }

    /// `body`'s model refusal as the `APIError` it is answered with (400, the same code and message).
    private static func answered<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as ValidationError { throw APIError(error) }
    }
}
