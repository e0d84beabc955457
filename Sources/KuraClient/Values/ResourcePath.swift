import Foundation
internal import KuraModel

/// Document and collection paths (`users/u1/todos/t9`): checked on the client with the server's rules, so a bad
/// path fails with `.invalidPath` before anything is sent.
enum ResourcePath {
    /// `"/users/u1/"` → `["users", "u1"]` (outer slashes are ignored; inner empty segments stay, to be refused).
    static func split(_ path: String) -> [String] {
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        while segments.first == "" { segments.removeFirst() }
        while segments.last == "" { segments.removeLast() }
        return segments
    }

    /// Throws `.invalidPath` unless `segments` is a document path (`document: true`) or a collection path.
    static func validate(_ segments: [String], document: Bool) throws {
        let joined = segments.joined(separator: "/")
        guard !segments.isEmpty, segments.count <= KuraModel.ResourcePath.maxSegments else {
            let most = KuraModel.ResourcePath.maxSegments
            throw KuraError(.invalidPath, "'\(joined)' is not a valid path (1 to \(most) segments)")
        }
        for id in segments { try validateID(id) }
        guard (segments.count % 2 == 0) == document else {
            let kind = document ? "document" : "collection"
            throw KuraError(
                .invalidPath,
                "'\(joined)' is not a \(kind) path (\(kind)s have \(document ? "an even" : "an odd") number of segments)"
            )
        }
    }

    /// Throws `.invalidPath` unless `id` is a valid document or collection ID, by the server's own rule
    /// (KuraModel's `ResourcePath.validateID`: by bytes, no `/`, not `.`/`..`, not `__…__`, at most 1500 bytes).
    static func validateID(_ id: String) throws {
        do { try KuraModel.ResourcePath.validateID(id) } catch let error as ValidationError {
            throw KuraError(.invalidPath, "'\(id)' is not a valid ID: \(error.message)")
        }
    }
}

/// Document IDs made on the client, in the server's format (KuraModel's `AutoID`): 20 base62 characters, 9 from the
/// time (so new documents sort together in the indexes) and 11 random ones.
enum AutoID {
    static func make(now: Date = Date()) -> String {
        KuraModel.AutoID.make(micros: Int64(max(0, now.timeIntervalSince1970 * 1_000_000)))
    }
}
