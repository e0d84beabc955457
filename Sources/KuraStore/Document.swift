import KuraCore

/// A stored document: its fields plus server-maintained metadata.
public struct Document: Sendable, Equatable {
    /// Where the document lives.
    public var path: DocumentPath
    /// The document's data (a JSON object).
    public var fields: JSONObject
    /// When the document was created, in microseconds since the Unix epoch.
    public var createTime: Int64
    /// When the document was last written, in microseconds since the Unix epoch.
    public var updateTime: Int64
    /// 1 on creation, +1 per write of this document (a deleted and re-created document starts again at 1).
    public var version: Int64

    /// Creates a document value.
    public init(path: DocumentPath, fields: JSONObject, createTime: Int64, updateTime: Int64, version: Int64) {
        self.path = path
        self.fields = fields
        self.createTime = createTime
        self.updateTime = updateTime
        self.version = version
    }

    /// The document ID (last path segment).
    public var id: String { path.id }

    /// The API representation:
    /// `{"id":…,"path":…,"createTime":"…Z","updateTime":"…Z","version":n,"data":{…}}`
    /// with RFC 3339 UTC timestamps to the microsecond.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("id", .string(id)),
                ("path", .string(path.description)),
                ("createTime", .string(Timestamp.rfc3339(createTime))),
                ("updateTime", .string(Timestamp.rfc3339(updateTime))),
                ("version", .int(version)),
                ("data", .object(fields)),
            ]))
    }

    /// `json`'s encoding, written directly (a create's or GET's answer, a cache entry, a listener's event) instead of
    /// building the `JSONValue` tree first.
    public var jsonBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(160)
        appendJSON(to: &out)
        return out
    }

    /// Appends `jsonBytes` to `out` (a query's answer writes its documents one after another).
    public func appendJSON(to out: inout [UInt8]) {
        out.append(contentsOf: #"{"id":"#.utf8)
        appendJSONString(id, to: &out)
        out.append(contentsOf: #","path":"#.utf8)
        appendJSONString(path.description, to: &out)
        out.append(contentsOf: #","createTime":""#.utf8)
        Timestamp.appendRFC3339(createTime, to: &out)
        out.append(contentsOf: #"","updateTime":""#.utf8)
        Timestamp.appendRFC3339(updateTime, to: &out)
        out.append(contentsOf: #"","version":"#.utf8)
        out.append(contentsOf: String(version).utf8)
        out.append(contentsOf: #","data":"#.utf8)
        JSONValue.object(fields).appendJSON(to: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// A copy holding only the fields at `paths` (nested paths keep their enclosing objects).
    public func projected(to paths: [FieldPath]) -> Document {
        var copy = self
        var selected = JSONObject()
        for path in paths {
            if let value = fields.value(at: path) { selected.setValue(value, at: path) }
        }
        copy.fields = selected
        return copy
    }
}

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
            throw KuraError.badRequest("documents nest at most \(maxDepth) levels deep")
        }
        try checkFieldNames(value)
        let bytes = value.jsonBytes
        if bytes.count > maxBytes {
            throw KuraError(
                code: "DOCUMENT_TOO_LARGE", status: 413,
                message: "the document is \(bytes.count) bytes; the limit is \(maxBytes)")
        }
        return bytes
    }

    private static func checkFieldNames(_ value: JSONValue) throws {
        switch value {
        case .object(let object):
            for member in object.members {
                if member.key.isEmpty { throw KuraError.badRequest("field names must not be empty") }
                try checkFieldNames(member.value)
            }
        case .array(let elements):
            for element in elements { try checkFieldNames(element) }
        default: break
        }
    }
}
