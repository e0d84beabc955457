import KuraModel

/// One page of the collection IDs directly under a document (or the root), for the admin API's collection tree.
public struct CollectionIDPage: Sendable, Equatable {
    /// The IDs, each once, in the order their collections' paths sort (UTF-8 bytes).
    public var ids: [String]
    /// Where the next page starts (a collection path to list after), or `nil` when this page is the last.
    public var next: String?
}

extension CollectionSnapshot {
    /// Up to `limit` IDs of the collections directly under `parent` (`nil`: top-level collections), continuing
    /// after the collection path `after` (a page's `next`). An ID is listed when its collection holds a document
    /// or a collection below it is in the catalogue (holds, or held, documents). Walks the collection catalogue by path and skips each ID's subtree once it is listed, so a page
    /// costs about one lookup per ID it returns (plus one per empty collection it passes), never a scan of the
    /// documents.
    package func collectionIDs(under parent: DocumentPath?, after: String?, limit: Int) throws -> CollectionIDPage {
        let prefix = parent.map { $0.description + "/" } ?? ""
        let slash = UInt8(ascii: "/")
        // A subtree's paths all sort before its ID followed by "/" and the highest code point (IDs are UTF-8).
        let subtreeEnd = "/\u{10FFFF}\u{10FFFF}\u{10FFFF}\u{10FFFF}"
        var cursor = after ?? prefix
        // IDs listed already whose subtrees still lie ahead: `a` is listed at the row `a`, but `a-b` sorts between
        // `a` and `a/x` (`-` before `/`), so `a`'s subcollections come after `a-b`. On a later page those IDs are
        // the cursor and its prefixes followed by a byte before "/", each when its own collection holds documents.
        var seen = Set<[UInt8]>()
        if after != nil {
            let rest = Array(cursor.utf8.dropFirst(prefix.utf8.count))
            // The cursor itself, when it is a listed ID's own collection, is one of them.
            var k = 1
            while k <= rest.count, rest[k - 1] != slash {
                if k == rest.count || rest[k] < slash,
                    try holdsDocuments(prefix + String(decoding: rest[0..<k], as: UTF8.self))
                {
                    seen.insert(Array(rest[0..<k]))
                }
                k += 1
            }
        }
        var ids: [String] = []
        while ids.count < limit {
            guard let row = try collection(after: cursor), row.path.utf8.starts(with: prefix.utf8) else {
                return CollectionIDPage(ids: ids, next: nil)
            }
            let rest = row.path.utf8.dropFirst(prefix.utf8.count)
            let idBytes = Array(rest.prefix { $0 != slash })
            let id = String(decoding: idBytes, as: UTF8.self)
            let isDirect = idBytes.count == rest.count
            if seen.contains(idBytes) {
                cursor = prefix + id + subtreeEnd
                continue
            }
            if isDirect, try documents(in: CollectionPath(row.path), cid: row.cid, after: "", limit: 1).isEmpty {
                // An emptied collection: its subcollections (later rows) may still hold documents.
                cursor = row.path
                continue
            }
            ids.append(id)
            seen.insert(idBytes)
            // After the ID's own row come IDs that extend it with a byte before "/", then its subtree; a first row
            // inside the subtree means no such IDs are left before it.
            cursor = isDirect ? row.path : prefix + id + subtreeEnd
        }
        let more = try collection(after: cursor).map { $0.path.utf8.starts(with: prefix.utf8) } ?? false
        return CollectionIDPage(ids: ids, next: more ? cursor : nil)
    }

    /// Whether the collection at `path` exists and holds a document.
    private func holdsDocuments(_ path: String) throws -> Bool {
        guard let collectionPath = try? CollectionPath(path), let cid = try cid(ofCollection: path) else {
            return false
        }
        return try !documents(in: collectionPath, cid: cid, after: "", limit: 1).isEmpty
    }
}
