import KuraModel

/// A `DocumentSnapshot` over an engine's `collections` and `docs` tables, listing documents in transfer order the
/// same way in every engine: collections by path, then each collection's documents by ID, both through their
/// unique indexes (no sort, no scan of what was listed before). The engine provides the three lookups.
package protocol CollectionSnapshot: DocumentSnapshot {
    /// The cid of the collection at `path`, if it exists.
    func cid(ofCollection path: String) throws -> Int64?

    /// The first collection whose path sorts after `path` in transfer order (`""` sorts before every path).
    func collection(after path: String) throws -> (cid: Int64, path: String)?

    /// Up to `limit` documents of `collection` (cid `cid`) whose IDs sort after `id`, by ID.
    func documents(in collection: CollectionPath, cid: Int64, after id: String, limit: Int) throws -> [Document]
}

extension CollectionSnapshot {
    /// Up to `limit` documents following `position` (`nil`: from the first) in transfer order.
    package func documents(after position: DocumentPath?, limit: Int) throws -> [Document] {
        var found: [Document] = []
        guard limit > 0 else { return found }
        // The collection being listed and the last ID listed in it.
        var current: (cid: Int64, path: CollectionPath)?
        var afterID = ""
        var afterCollection = ""
        if let position {
            afterCollection = position.collection.description
            afterID = position.id
            if let cid = try cid(ofCollection: afterCollection) { current = (cid, position.collection) }
        }
        while found.count < limit {
            if current == nil {
                guard let next = try collection(after: afterCollection) else { break }
                current = (next.cid, try CollectionPath(next.path))
                afterCollection = next.path
                afterID = ""
            }
            guard let (cid, collection) = current else { break }
            let wanted = limit - found.count
            let documents = try documents(in: collection, cid: cid, after: afterID, limit: wanted)
            found += documents
            if documents.count < wanted {
                current = nil  // this collection is done
            } else if let last = found.last {
                afterID = last.id
            }
        }
        return found
    }
}
