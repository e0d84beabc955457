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
                ("createTime", .string(RFC3339.format(createTime))),
                ("updateTime", .string(RFC3339.format(updateTime))),
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
        RFC3339.append(createTime, to: &out)
        out.append(contentsOf: #"","updateTime":""#.utf8)
        RFC3339.append(updateTime, to: &out)
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
