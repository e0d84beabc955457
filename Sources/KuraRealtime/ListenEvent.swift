import KuraCore
import KuraModel
import KuraStore

/// The Server-Sent Events of a listen stream (docs/realtime.md), framed as `event:`, `id:` and one `data:` line
/// of compact JSON (which never contains a line break).
enum ListenEvent {
    /// `event: connected`: the stream's id, which `POST /api/listen/{id}` names.
    static func connected(_ connectionID: String, heartbeatSeconds: Double) -> [UInt8] {
        var data: [UInt8] = Array(#"{"connectionId":"#.utf8)
        appendJSONString(connectionID, to: &data)
        data.append(contentsOf: #","heartbeatSeconds":"#.utf8)
        JSONValue.double(heartbeatSeconds).appendJSON(to: &data)
        data.append(UInt8(ascii: "}"))
        return frame("connected", id: nil, data)
    }

    /// `event: snapshot`: every document of a target, in order.
    static func snapshot(_ target: ListenTarget, _ documents: [Document], id: StreamPosition, cache: inout DocumentJSON)
        -> [UInt8]
    {
        var data = targetPrefix(target.id)
        data.append(contentsOf: #","documents":["#.utf8)
        for (index, document) in documents.enumerated() {
            if index > 0 { data.append(UInt8(ascii: ",")) }
            cache.append(document, select: target.select, to: &data)
        }
        data.append(contentsOf: "]}".utf8)
        return frame("snapshot", id: id, data)
    }

    /// `event: changes`: what happened to a target's documents, in order.
    static func changes(
        _ target: ListenTarget, _ changes: [ListenChange], id: StreamPosition, cache: inout DocumentJSON
    ) -> [UInt8] {
        Self.changes(target, [ChangeChunk(changes)], id: Array(id.description.utf8), cache: &cache)
    }

    /// `event: changes` for the chunks of changes a page made to one target (each chunk encoded once, however
    /// many listeners share it), the chunks' changes in order. `id` is the event id's text.
    static func changes(
        _ target: ListenTarget, _ chunks: [ChangeChunk], id: [UInt8], cache: inout DocumentJSON
    ) -> [UInt8] {
        var size = target.id.utf8.count + id.count + 64
        for chunk in chunks {
            if chunk.encoded == nil {
                var encoded: [UInt8] = []
                appendChanges(chunk.changes, select: target.select, to: &encoded, cache: &cache)
                chunk.encoded = encoded
            }
            size += chunk.encoded!.count + 1
        }
        var out: [UInt8] = []
        out.reserveCapacity(size)
        out.append(contentsOf: "event: changes\nid: ".utf8)
        out.append(contentsOf: id)
        out.append(contentsOf: "\ndata: ".utf8)
        out.append(contentsOf: #"{"target":"#.utf8)
        appendJSONString(target.id, to: &out)
        out.append(contentsOf: #","changes":["#.utf8)
        for (index, chunk) in chunks.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: chunk.encoded!)
        }
        out.append(contentsOf: "]}\n\n".utf8)
        return out
    }

    /// The JSON of `changes`, separated by commas.
    private static func appendChanges(
        _ changes: [ListenChange], select: [FieldPath]?, to data: inout [UInt8], cache: inout DocumentJSON
    ) {
        for (index, change) in changes.enumerated() {
            if index > 0 { data.append(UInt8(ascii: ",")) }
            data.append(contentsOf: #"{"type":""#.utf8)
            data.append(contentsOf: change.kind.rawValue.utf8)
            data.append(contentsOf: #"","document":"#.utf8)
            cache.append(change.document, select: select, to: &data)
            data.append(contentsOf: #","oldIndex":"#.utf8)
            data.append(contentsOf: String(change.oldIndex).utf8)
            data.append(contentsOf: #","newIndex":"#.utf8)
            data.append(contentsOf: String(change.newIndex).utf8)
            data.append(UInt8(ascii: "}"))
        }
    }

    /// `event: reset`: the listener's changes cannot be replayed; the snapshot that follows replaces its
    /// documents.
    static func reset(_ targetID: String, reason: String) -> [UInt8] {
        var data = targetPrefix(targetID)
        data.append(contentsOf: #","reason":"#.utf8)
        appendJSONString(reason, to: &data)
        data.append(UInt8(ascii: "}"))
        return frame("reset", id: nil, data)
    }

    /// `event: error` for one target, which is dropped.
    static func error(_ targetID: String, _ error: APIError) -> [UInt8] {
        var data = targetPrefix(targetID)
        data.append(contentsOf: #","code":"#.utf8)
        appendJSONString(error.code.rawValue, to: &data)
        data.append(contentsOf: #","message":"#.utf8)
        appendJSONString(error.message, to: &data)
        data.append(UInt8(ascii: "}"))
        return frame("error", id: nil, data)
    }

    /// A last event before the server closes the stream (`overflow`, `auth_revoked`).
    static func terminal(_ name: String, code: ErrorCode, message: String) -> [UInt8] {
        var data: [UInt8] = Array(#"{"code":"#.utf8)
        appendJSONString(code.rawValue, to: &data)
        data.append(contentsOf: #","message":"#.utf8)
        appendJSONString(message, to: &data)
        data.append(UInt8(ascii: "}"))
        return frame(name, id: nil, data)
    }

    /// A heartbeat comment; with `id`, also an id-only block, which moves the client's `Last-Event-ID` forward
    /// without dispatching an event (so a quiet listener resumes from a recent position).
    static func heartbeat(id: StreamPosition?) -> [UInt8] {
        guard let id else { return Array(": heartbeat\n\n".utf8) }
        return Array(": heartbeat\nid: \(id)\n\n".utf8)
    }

    private static func targetPrefix(_ id: String) -> [UInt8] {
        var data: [UInt8] = Array(#"{"target":"#.utf8)
        appendJSONString(id, to: &data)
        return data
    }

    private static func frame(_ name: String, id: StreamPosition?, _ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + 48)
        out.append(contentsOf: "event: ".utf8)
        out.append(contentsOf: name.utf8)
        if let id {
            out.append(contentsOf: "\nid: ".utf8)
            out.append(contentsOf: id.description.utf8)
        }
        out.append(contentsOf: "\ndata: ".utf8)
        out.append(contentsOf: data)
        out.append(contentsOf: "\n\n".utf8)
        return out
    }
}

/// Documents encoded as API JSON once per batch, however many listeners receive them.
struct DocumentJSON {
    private struct Key: Hashable {
        var path: DocumentPath
        var version: Int64
        var updateTime: Int64
    }
    private var encoded: [Key: [UInt8]] = [:]

    mutating func append(_ document: Document, select: [FieldPath]?, to out: inout [UInt8]) {
        if let select {
            document.projected(to: select).json.appendJSON(to: &out)
            return
        }
        let key = Key(path: document.path, version: document.version, updateTime: document.updateTime)
        if let bytes = encoded[key] {
            out.append(contentsOf: bytes)
            return
        }
        let bytes = document.jsonBytes
        if encoded.count > 4096 { encoded.removeAll(keepingCapacity: true) }
        encoded[key] = bytes
        out.append(contentsOf: bytes)
    }
}
