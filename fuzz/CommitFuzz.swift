// libFuzzer harness for commit decoding: the input is the JSON body of `POST /api/commit` (`{"writes":[…]}`, or one
// write alone), each write decoded by KuraModel's `Write(json:)` (what the server decodes with), written back as
// JSON by the model's `json` (what the Swift SDK sends) and decoded again.
// Properties: decode → encode → decode gives the same writes (path, operation and data by bytes, merge,
// precondition, transforms in order); decoding fails only with a 400 APIError/ValidationError, never a crash.
import KuraCore
import KuraModel
import KuraStore

@_cdecl("LLVMFuzzerTestOneInput")
public func commitFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let body = try? JSONValue.parse(UnsafeBufferPointer(start: data, count: size)) else { return 0 }
    let items = body.objectValue?["writes"]?.arrayValue ?? [body]
    for item in items.prefix(CommitLimits.maxWrites) {
        let write: Write
        do {
            write = try Write(json: item)
        } catch {
            if let error = error as? APIError {
                require(error.status == 400, "a write refused with \(error.status)")
            } else {
                require(error is ValidationError, "a write refused with \(type(of: error))")
            }
            continue
        }
        let encoded = write.json
        guard let again = try? Write(json: encoded) else {
            require(false, "the encoded write \(encoded.jsonString) (from \(item.jsonString)) does not decode")
            continue
        }
        require(
            describe(again) == describe(write),
            "decode → encode → decode changed the write:\n\(describe(write))\n\(describe(again))")
    }
    return 0
}

private func bytes(_ path: FieldPath) -> String { "\(path.segments.map { Array($0.utf8) })" }

/// Everything a write says, as text (names and strings by bytes).
private func describe(_ write: Write) -> String {
    var parts = ["path \(write.path.segments.map { Array($0.utf8) })"]
    switch write.operation {
    case .create(let data): parts.append("create \(JSONValue.object(data).jsonBytes)")
    case .set(let data, let merge): parts.append("set merge=\(merge) \(JSONValue.object(data).jsonBytes)")
    case .update(let updates):
        parts.append("update " + updates.map { "\(bytes($0.0))=\($0.1.jsonBytes)" }.joined(separator: " "))
    case .delete: parts.append("delete")
    }
    parts.append("precondition \(String(describing: write.precondition))")
    for transform in write.transforms {
        let kind: String =
            switch transform.kind {
            case .increment(let n): "increment \(n.jsonBytes)"
            case .maximum(let n): "maximum \(n.jsonBytes)"
            case .minimum(let n): "minimum \(n.jsonBytes)"
            case .arrayUnion(let values): "arrayUnion \(JSONValue.array(values).jsonBytes)"
            case .arrayRemove(let values): "arrayRemove \(JSONValue.array(values).jsonBytes)"
            case .serverTimestamp: "serverTimestamp"
            case .delete: "delete"
            }
        parts.append("transform \(bytes(transform.field)) \(kind)")
    }
    return parts.joined(separator: "\n")
}
