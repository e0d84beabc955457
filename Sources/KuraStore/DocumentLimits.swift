import KuraCore
import KuraModel

/// Limits every document obeys.
public enum DocumentLimits {
    /// Largest encoded size of a document's fields: 1 MiB.
    public static let maxBytes = 1 << 20
    /// Deepest nesting of arrays/objects inside a document's fields.
    public static let maxDepth = 20

    /// Throws 400 `INVALID_ARGUMENT` (empty field name, too deep) or 413 `DOCUMENT_TOO_LARGE`; returns the
    /// encoded bytes on success so callers do not serialize twice.
    public static func validate(_ fields: JSONObject) throws -> [UInt8] {
        let value = JSONValue.object(fields)
        // The object itself is one level, so its contents may nest maxDepth more.
        if value.depth > maxDepth + 1 {
            throw APIError.badRequest("documents nest at most \(maxDepth) levels deep")
        }
        try checkFieldNames(value)
        let bytes = value.jsonBytes
        if bytes.count > maxBytes {
            throw APIError.documentTooLarge(
                "the document is \(bytes.count) bytes; the limit is \(maxBytes)")
        }
        return bytes
    }

    private static func checkFieldNames(_ value: JSONValue) throws {
        switch value {
        case .object(let object):
            for member in object.members {
                if member.key.isEmpty { throw APIError.badRequest("field names must not be empty") }
                try checkFieldNames(member.value)
            }
        case .array(let elements):
            for element in elements { try checkFieldNames(element) }
        default: break
        }
    }
}
