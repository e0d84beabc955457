/// The wire format of a write, one element of `POST /api/commit`'s `writes`:
/// `{"op":"create|set|update|delete","path":…,"data":…,"merge":…,"precondition":{"exists"|"version"},
///   "transforms":[{"field":…,"increment"|"serverTimestamp"|"arrayUnion"|"arrayRemove"|"delete"|"maximum"|"minimum":…}]}`.
/// The server decodes it with `init(json:)`, the Swift SDK encodes it with `json`: one definition for both.
extension Write {
    /// Decodes one write; throws 400 `INVALID_ARGUMENT` (a `ValidationError`; `INVALID_PATH` for the path).
    public init(json value: JSONValue) throws {
        let body = try JSONMembers(value, code: .invalidArgument, context: "a write")
        try body.allowOnly(["op", "path", "data", "merge", "precondition", "transforms"], in: "a write")
        guard let path = try body.string("path") else { throw ValidationError.invalidArgument("a write needs 'path'") }
        let documentPath = try DocumentPath(path)
        let data = try body.object("data")
        func required(_ data: JSONObject?) throws -> JSONObject {
            guard let data else { throw ValidationError.invalidArgument("this write needs 'data' (an object)") }
            return data
        }
        let operation: Operation
        switch try body.string("op") {
        case "create": operation = .create(try required(data))
        case "set": operation = .set(try required(data), merge: try body.bool("merge") ?? false)
        case "update": operation = .update(try Self.fieldUpdates(try required(data)))
        case "delete": operation = .delete
        case let other:
            throw ValidationError.invalidArgument(
                "'op' must be create, set, update or delete, not \(other ?? "missing")")
        }
        self.init(
            path: documentPath, operation: operation,
            precondition: try Precondition(json: body.object("precondition")),
            transforms: try (body.array("transforms") ?? []).map(FieldTransform.init(json:)))
    }

    /// The write as `POST /api/commit` takes it; `Write(json: write.json)` gives the write back.
    public var json: JSONValue {
        let wire: WireOperation
        switch operation {
        case .create(let data): wire = .create(data)
        case .set(let data, let merge): wire = .set(data, merge: merge)
        case .update(let assignments): wire = .update(JSONObject(assignments.map { ($0.0.description, $0.1) }))
        case .delete: wire = .delete
        }
        return Self.json(
            path: path.description, operation: wire, precondition: precondition,
            transforms: transforms.map { ($0.field.description, $0.kind) })
    }

    /// An operation as the wire carries it: an update's keys are field paths as text (`a.b`, `` `x.y` ``).
    public enum WireOperation: Sendable {
        case create(JSONObject)
        case set(JSONObject, merge: Bool)
        case update(JSONObject)
        case delete
    }

    /// The wire form of a write whose paths are given as text, as a client holds them before the server parses
    /// them (the Swift SDK sends its writes so, and the server answers a bad path as it would any).
    public static func json(
        path: String, operation: WireOperation, precondition: Precondition?,
        transforms: [(field: String, kind: FieldTransform.Kind)]
    ) -> JSONValue {
        var out = JSONObject()
        switch operation {
        case .create(let data):
            out["op"] = "create"
            out["data"] = .object(data)
        case .set(let data, let merge):
            out["op"] = "set"
            out["data"] = .object(data)
            if merge { out["merge"] = true }
        case .update(let data):
            out["op"] = "update"
            out["data"] = .object(data)
        case .delete:
            out["op"] = "delete"
        }
        out["path"] = .string(path)
        if let precondition { out["precondition"] = precondition.json }
        if !transforms.isEmpty {
            out["transforms"] = .array(transforms.map { FieldTransform.json(field: $0.field, kind: $0.kind) })
        }
        return .object(out)
    }

    /// `{"a.b": 1}` → the field path `a.b` set to 1. Two keys that spell one field path (`a.b` and `` `a`.b ``) are
    /// refused: which value would win is not something a client should have to guess.
    public static func fieldUpdates(_ data: JSONObject) throws -> [(FieldPath, JSONValue)] {
        var seen = Set<FieldPath>()
        return try data.map { member in
            let path = try FieldPath(member.key)
            guard seen.insert(path).inserted else {
                throw ValidationError.invalidArgument("the update names the field '\(path)' twice")
            }
            return (path, member.value)
        }
    }
}

extension Precondition {
    /// Decodes `{"exists": Bool}` or `{"version": Int}`; `nil` for no object or an empty one.
    public init?(json object: JSONObject?) throws {
        guard let object else { return nil }
        let body = try JSONMembers(.object(object), code: .invalidArgument, context: "'precondition'")
        try body.allowOnly(["exists", "version"], in: "'precondition'")
        switch (try body.bool("exists"), try body.integer("version")) {
        case (nil, nil): return nil
        case (let exists?, nil): self = .exists(exists)
        case (nil, let version?): self = .version(version)
        default: throw ValidationError.invalidArgument("a precondition has either 'exists' or 'version', not both")
        }
    }

    /// The wire form, `{"exists": Bool}` or `{"version": Int}`.
    public var json: JSONValue {
        switch self {
        case .exists(let exists): ["exists": .bool(exists)]
        case .version(let version): ["version": .int(version)]
        }
    }
}

extension FieldTransform {
    /// Decodes `{"field": path, "<kind>": operand}`.
    public init(json value: JSONValue) throws {
        let body = try JSONMembers(value, code: .invalidArgument, context: "a transform")
        guard let name = try body.string("field") else {
            throw ValidationError.invalidArgument("a transform needs 'field'")
        }
        let kinds = body.object.keys.filter { $0 != "field" }
        guard kinds.count == 1, let kind = kinds.first, let operand = body[kind] else {
            throw ValidationError.invalidArgument("a transform has 'field' and exactly one kind")
        }
        let field = try FieldPath(name)
        func number() throws -> JSONValue {
            guard operand.isNumber else { throw ValidationError.invalidArgument("'\(kind)' takes a number") }
            return operand
        }
        func elements() throws -> [JSONValue] {
            guard let array = operand.arrayValue else {
                throw ValidationError.invalidArgument("'\(kind)' takes an array")
            }
            return array
        }
        switch kind {
        case "increment": self.init(field: field, kind: .increment(try number()))
        case "maximum": self.init(field: field, kind: .maximum(try number()))
        case "minimum": self.init(field: field, kind: .minimum(try number()))
        case "arrayUnion": self.init(field: field, kind: .arrayUnion(try elements()))
        case "arrayRemove": self.init(field: field, kind: .arrayRemove(try elements()))
        case "serverTimestamp": self.init(field: field, kind: .serverTimestamp)
        case "delete": self.init(field: field, kind: .delete)
        default: throw ValidationError.invalidArgument("unknown transform '\(kind)'")
        }
    }

    /// The wire form, `{"field": path, "<kind>": operand}`.
    public var json: JSONValue { Self.json(field: field.description, kind: kind) }

    /// The wire form of a transform of the field path `field` (as text).
    public static func json(field: String, kind: Kind) -> JSONValue {
        let field = JSONValue.string(field)
        switch kind {
        case .increment(let operand): return ["field": field, "increment": operand]
        case .maximum(let operand): return ["field": field, "maximum": operand]
        case .minimum(let operand): return ["field": field, "minimum": operand]
        case .arrayUnion(let elements): return ["field": field, "arrayUnion": .array(elements)]
        case .arrayRemove(let elements): return ["field": field, "arrayRemove": .array(elements)]
        case .serverTimestamp: return ["field": field, "serverTimestamp": true]
        case .delete: return ["field": field, "delete": true]
        }
    }
}

/// The body of `POST /api/commit`, `{"writes":[…]}`: the SDK encodes it with `json(writes:)`, the server decodes it
/// with `writes(_:maxWrites:)`.
public enum CommitRequest {
    /// The body holding `writes` (each a write's wire form, `Write.json`).
    public static func json(writes: [JSONValue]) -> JSONValue { ["writes": .array(writes)] }

    /// The writes of a commit body: 1 to `maxWrites` of them; throws 400 `INVALID_ARGUMENT`.
    public static func writes(_ body: JSONValue, maxWrites: Int) throws -> [Write] {
        let body = try JSONMembers(body, code: .invalidArgument)
        try body.allowOnly(["writes"])
        guard let writes = try body.array("writes"), !writes.isEmpty else {
            throw ValidationError.invalidArgument("a commit needs a non-empty 'writes' array")
        }
        guard writes.count <= maxWrites else {
            throw ValidationError.invalidArgument("a commit holds at most \(maxWrites) writes, not \(writes.count)")
        }
        return try writes.map(Write.init(json:))
    }
}

/// The answer to `POST /api/commit`, `{"writeResults":[{"path","version","updateTime"}],"commitTime"}`: the server
/// writes it with `json`, the SDK reads it with `init(json:)`.
public struct CommitResponse: Sendable, Equatable {
    /// One write's outcome.
    public struct Result: Sendable, Equatable {
        /// The document written.
        public var path: String
        /// Its version after the write; 0 for a delete.
        public var version: Int64
        /// The commit time, RFC 3339.
        public var updateTime: String

        /// A write's outcome.
        public init(path: String, version: Int64, updateTime: String) {
            self.path = path
            self.version = version
            self.updateTime = updateTime
        }
    }

    /// The writes' outcomes, in the order of the writes.
    public var results: [Result]
    /// The commit time, RFC 3339; `nil` (`null`) only for a commit of no writes.
    public var commitTime: String?

    /// An answer.
    public init(results: [Result], commitTime: String?) {
        self.results = results
        self.commitTime = commitTime
    }

    /// The answer's JSON.
    public var json: JSONValue {
        let items: [JSONValue] = results.map { result in
            ["path": .string(result.path), "version": .int(result.version), "updateTime": .string(result.updateTime)]
        }
        return ["writeResults": .array(items), "commitTime": commitTime.map(JSONValue.string) ?? .null]
    }

    /// Reads an answer as a client trusting its server does: a missing or malformed member reads as empty (no
    /// results, version 0, empty text).
    public init(json: JSONValue?) {
        let object = json?.objectValue
        results = (object?["writeResults"]?.arrayValue ?? []).map { item in
            let member = item.objectValue
            let version: Int64 =
                switch member?["version"] {
                case .int(let number)?: number
                case .double(let number)?: Int64(exactly: number) ?? 0
                default: 0
                }
            return Result(
                path: member?["path"]?.stringValue ?? "", version: version,
                updateTime: member?["updateTime"]?.stringValue ?? "")
        }
        commitTime = object?["commitTime"]?.stringValue
    }
}
