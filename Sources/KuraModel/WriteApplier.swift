/// Computes what a write does to a document, independently of any storage engine: preconditions, create /
/// set / merge / update semantics and field transforms. The server's engines read the current document, call
/// `apply`, and store the outcome; the Swift SDK runs the same code over its offline cache.
public enum WriteApplier {
    /// The new fields, or `nil` when the write deletes the document.
    ///
    /// Throws a `WriteRefusal`: 412 `FAILED_PRECONDITION`, 409 `ALREADY_EXISTS`, 404 `NOT_FOUND`,
    /// 400 `INVALID_ARGUMENT`.
    public static func apply(_ write: Write, to existing: Document?, commitTime: Int64) throws -> JSONObject? {
        try check(write.precondition, existing: existing, path: write.path)
        var fields: JSONObject
        switch write.operation {
        case .delete:
            return nil
        case .create(let new):
            if existing != nil {
                throw WriteRefusal.alreadyExists("document \(write.path) already exists")
            }
            fields = new
        case .set(let new, let merge):
            fields = merge ? deepMerge(existing?.fields ?? JSONObject(), new) : new
        case .update(let assignments):
            guard let existing else { throw WriteRefusal.notFound("document \(write.path) does not exist") }
            fields = existing.fields
            try checkDisjoint(assignments.map(\.0))
            for (path, value) in assignments { fields.setValue(value, at: path) }
        }
        for transform in write.transforms {
            try apply(transform, to: &fields, commitTime: commitTime)
        }
        return fields
    }

    static func check(_ precondition: Precondition?, existing: Document?, path: DocumentPath) throws {
        switch precondition {
        case nil: return
        case .exists(true) where existing == nil:
            throw WriteRefusal.failedPrecondition("document \(path) does not exist")
        case .exists(false) where existing != nil:
            throw WriteRefusal.failedPrecondition("document \(path) already exists")
        case .version(let version) where existing?.version != version:
            let actual = existing.map { "version \($0.version)" } ?? "no document"
            throw WriteRefusal.failedPrecondition("document \(path) is not at version \(version) (found \(actual))")
        default: return
        }
    }

    /// Rejects updates naming both a field and something inside it (`a` and `a.b`), which Firestore forbids.
    private static func checkDisjoint(_ paths: [FieldPath]) throws {
        guard paths.count > 1 else { return }
        let sorted = paths.sorted { $0.segments.count < $1.segments.count }
        for (position, outer) in sorted.enumerated() {
            for inner in sorted[(position + 1)...] where inner.isWithin(outer) {
                throw WriteRefusal.invalidArgument("field paths \(outer) and \(inner) overlap")
            }
        }
    }

    /// `base` with `overlay` merged in: objects merge recursively, anything else replaces.
    static func deepMerge(_ base: JSONObject, _ overlay: JSONObject) -> JSONObject {
        var merged = base
        for member in overlay.members {
            if case .object(let inner) = member.value, case .object(let existing)? = merged[member.key] {
                merged[member.key] = .object(deepMerge(existing, inner))
            } else {
                merged[member.key] = member.value
            }
        }
        return merged
    }

    static func apply(_ transform: FieldTransform, to fields: inout JSONObject, commitTime: Int64) throws {
        let current = fields.value(at: transform.field)
        let new: JSONValue?
        switch transform.kind {
        case .delete:
            new = nil
        case .serverTimestamp:
            new = .string(RFC3339.format(commitTime))
        case .increment(let operand):
            try requireNumber(operand, "increment")
            new = add(current.flatMap { $0.isNumber ? $0 : nil } ?? .int(0), operand)
        case .maximum(let operand), .minimum(let operand):
            try requireNumber(operand, "maximum/minimum")
            guard let current, current.isNumber else {
                new = operand
                break
            }
            let order = ValueOrdering.compare(operand, current)
            if case .maximum = transform.kind {
                new = order > 0 ? operand : current
            } else {
                new = order < 0 ? operand : current
            }
        case .arrayUnion(let elements):
            var array = current?.arrayValue ?? []
            for element in elements where !array.contains(where: { ValueOrdering.compare($0, element) == 0 }) {
                array.append(element)
            }
            new = .array(array)
        case .arrayRemove(let elements):
            let array = current?.arrayValue ?? []
            new = .array(
                array.filter { value in !elements.contains { ValueOrdering.compare($0, value) == 0 } })
        }
        fields.setValue(new, at: transform.field)
    }

    private static func requireNumber(_ value: JSONValue, _ name: String) throws {
        guard value.isNumber else { throw WriteRefusal.invalidArgument("\(name) needs a numeric operand") }
    }

    /// int + int saturates at the Int64 bounds; any double makes the result a double.
    static func add(_ lhs: JSONValue, _ rhs: JSONValue) -> JSONValue {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)):
            let (sum, overflow) = a.addingReportingOverflow(b)
            if !overflow { return .int(sum) }
            return .int(b > 0 ? .max : .min)
        case (.int(let a), .double(let b)): return .double(Double(a) + b)
        case (.double(let a), .int(let b)): return .double(a + Double(b))
        case (.double(let a), .double(let b)): return .double(a + b)
        default: return rhs
        }
    }
}

/// Why a write does not apply to the document as it is. The server answers it with `status` and the SDK raises it
/// with its code; the messages are the server's.
public struct WriteRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, for programs.
    public var code: ErrorCode
    /// The HTTP status the server answers it with.
    public var status: Int
    /// What was wrong, for people; never holds document data.
    public var message: String

    /// A refusal with `code`, answered with `status`.
    public init(_ code: ErrorCode, status: Int, _ message: String) {
        self.code = code
        self.status = status
        self.message = message
    }

    public var description: String { "\(status) \(code): \(message)" }

    /// 412 `FAILED_PRECONDITION`: a precondition does not hold.
    public static func failedPrecondition(_ message: String) -> WriteRefusal {
        WriteRefusal(.failedPrecondition, status: 412, message)
    }
    /// 409 `ALREADY_EXISTS`: a create of a document that exists.
    public static func alreadyExists(_ message: String) -> WriteRefusal {
        WriteRefusal(.alreadyExists, status: 409, message)
    }
    /// 404 `NOT_FOUND`: an update of a missing document.
    public static func notFound(_ message: String) -> WriteRefusal { WriteRefusal(.notFound, status: 404, message) }
    /// 400 `INVALID_ARGUMENT`: a write that cannot apply to any document.
    public static func invalidArgument(_ message: String) -> WriteRefusal {
        WriteRefusal(.invalidArgument, status: 400, message)
    }
}
