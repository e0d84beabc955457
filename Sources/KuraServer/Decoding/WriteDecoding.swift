import KuraCore
import KuraModel
import KuraStore

/// Turns the JSON writes of `POST /api/commit` into `Write`s:
/// `{"op":"create|set|update|delete","path":…,"data":…,"merge":…,"precondition":{"exists"|"version"},
///   "transforms":[{"field":…,"increment"|"serverTimestamp"|"arrayUnion"|"arrayRemove"|"delete"|"maximum"|"minimum":…}]}`.
enum WriteDecoding {
    static func decode(_ value: JSONValue) throws -> Write {
        let body = try JSONBody(value, code: .invalidArgument, context: "a write")
        try body.allowOnly(["op", "path", "data", "merge", "precondition", "transforms"], in: "a write")
        guard let path = try body.string("path") else { throw APIError.badRequest("a write needs 'path'") }
        let documentPath = try DocumentPath(path)
        let data = try body.object("data")
        let operation: Write.Operation
        switch try body.string("op") {
        case "create": operation = .create(try required(data))
        case "set": operation = .set(try required(data), merge: try body.bool("merge") ?? false)
        case "update": operation = .update(try fieldUpdates(try required(data)))
        case "delete": operation = .delete
        case let other:
            throw APIError.badRequest("'op' must be create, set, update or delete, not \(other ?? "missing")")
        }
        return Write(
            path: documentPath, operation: operation, precondition: try precondition(body.object("precondition")),
            transforms: try (body.array("transforms") ?? []).map(transform))
    }

    /// `{"a.b": 1}` → the field path `a.b` set to 1. Two keys that spell one field path (`a.b` and `` `a`.b ``) are
    /// refused: which value would win is not something a client should have to guess.
    static func fieldUpdates(_ data: JSONObject) throws -> [(FieldPath, JSONValue)] {
        var seen = Set<FieldPath>()
        return try data.map { member in
            let path = try FieldPath(member.key)
            guard seen.insert(path).inserted else {
                throw APIError.badRequest("the update names the field '\(path)' twice")
            }
            return (path, member.value)
        }
    }

    static func precondition(_ object: JSONObject?) throws -> Precondition? {
        guard let object else { return nil }
        let body = try JSONBody(.object(object), code: .invalidArgument, context: "'precondition'")
        try body.allowOnly(["exists", "version"], in: "'precondition'")
        switch (try body.bool("exists"), try body.integer("version")) {
        case (nil, nil): return nil
        case (let exists?, nil): return .exists(exists)
        case (nil, let version?): return .version(version)
        default: throw APIError.badRequest("a precondition has either 'exists' or 'version', not both")
        }
    }

    private static func required(_ data: JSONObject?) throws -> JSONObject {
        guard let data else { throw APIError.badRequest("this write needs 'data' (an object)") }
        return data
    }

    private static func transform(_ value: JSONValue) throws -> FieldTransform {
        let body = try JSONBody(value, code: .invalidArgument, context: "a transform")
        guard let name = try body.string("field") else { throw APIError.badRequest("a transform needs 'field'") }
        let kinds = body.object.keys.filter { $0 != "field" }
        guard kinds.count == 1, let kind = kinds.first, let operand = body[kind] else {
            throw APIError.badRequest("a transform has 'field' and exactly one kind")
        }
        let field = try FieldPath(name)
        func number() throws -> JSONValue {
            guard operand.isNumber else { throw APIError.badRequest("'\(kind)' takes a number") }
            return operand
        }
        func elements() throws -> [JSONValue] {
            guard let array = operand.arrayValue else { throw APIError.badRequest("'\(kind)' takes an array") }
            return array
        }
        switch kind {
        case "increment": return FieldTransform(field: field, kind: .increment(try number()))
        case "maximum": return FieldTransform(field: field, kind: .maximum(try number()))
        case "minimum": return FieldTransform(field: field, kind: .minimum(try number()))
        case "arrayUnion": return FieldTransform(field: field, kind: .arrayUnion(try elements()))
        case "arrayRemove": return FieldTransform(field: field, kind: .arrayRemove(try elements()))
        case "serverTimestamp": return FieldTransform(field: field, kind: .serverTimestamp)
        case "delete": return FieldTransform(field: field, kind: .delete)
        default: throw APIError.badRequest("unknown transform '\(kind)'")
        }
    }
}
