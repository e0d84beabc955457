/// One write in a commit: what to do to which document, guarded by an optional precondition, followed by
/// optional field transforms (applied to the result of the operation, in order).
public struct Write: Sendable {
    /// What the write does.
    public enum Operation: Sendable {
        /// Create the document; 409 `ALREADY_EXISTS` if it exists.
        case create(JSONObject)
        /// Create or replace the document; with `merge`, nested objects are merged into the existing data.
        case set(JSONObject, merge: Bool)
        /// Set the given field paths (creating intermediate objects); 404 `NOT_FOUND` if the document is missing.
        case update([(FieldPath, JSONValue)])
        /// Delete the document; no error if it is missing.
        case delete
    }

    /// The document written.
    public var path: DocumentPath
    /// The operation.
    public var operation: Operation
    /// Checked before the write; a failure aborts the whole commit with 412 `FAILED_PRECONDITION`.
    public var precondition: Precondition?
    /// Field transforms applied after the operation (ignored for deletes).
    public var transforms: [FieldTransform]

    /// Creates a write.
    public init(
        path: DocumentPath, operation: Operation, precondition: Precondition? = nil, transforms: [FieldTransform] = []
    ) {
        self.path = path
        self.operation = operation
        self.precondition = precondition
        self.transforms = transforms
    }
}

/// A condition on the current state of a document.
public enum Precondition: Sendable, Equatable {
    /// The document must (true) or must not (false) exist.
    case exists(Bool)
    /// The document must exist with exactly this version.
    case version(Int64)
}

/// A server-side change to one field, applied after the write's operation.
public struct FieldTransform: Sendable {
    /// The kinds of transform.
    public enum Kind: Sendable {
        /// Adds a number (int + int stays int and saturates at the Int64 bounds; anything with a double is a
        /// double). A missing or non-numeric field counts as 0.
        case increment(JSONValue)
        /// Sets the field to the commit time (RFC 3339 string).
        case serverTimestamp
        /// Appends each element not already present (missing or non-array field counts as `[]`).
        case arrayUnion([JSONValue])
        /// Removes every element equal to one of these.
        case arrayRemove([JSONValue])
        /// Removes the field.
        case delete
        /// Sets the field to the larger of its value and this number (a missing or non-numeric field takes it).
        case maximum(JSONValue)
        /// Sets the field to the smaller of its value and this number (a missing or non-numeric field takes it).
        case minimum(JSONValue)
    }

    /// The field transformed.
    public var field: FieldPath
    /// The transform.
    public var kind: Kind

    /// Creates a transform.
    public init(field: FieldPath, kind: Kind) {
        self.field = field
        self.kind = kind
    }
}
