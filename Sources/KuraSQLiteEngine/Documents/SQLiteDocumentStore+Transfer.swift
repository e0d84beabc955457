import KuraCore
import KuraModel
import KuraSQLite
import KuraStore

/// `kura export` / `kura import` on SQLite: the snapshot is one read transaction on a pooled reader (WAL: the
/// writer keeps committing meanwhile; the WAL cannot be reset past the snapshot until it ends, so a long export
/// under heavy writes lets the WAL grow); imports go through the writer like any commit.
extension SQLiteDocumentStore: DocumentTransfer {
    public func withDocumentSnapshot<T>(_ body: (any DocumentSnapshot) throws -> T) throws -> T {
        try readers.withSnapshot { connection in try body(SQLiteDocumentSnapshot(connection: connection)) }
    }

    public func importDocuments(_ documents: [Document], replacing: Bool) throws {
        guard documents.count <= CommitLimits.maxWrites else {
            throw APIError.badRequest("an import batch has at most \(CommitLimits.maxWrites) documents")
        }
        if documents.isEmpty { return }
        // Encoded and indexed here, off the writer thread, as `PreparedWrite` does for commits.
        let prepared = try documents.map { document in
            (document, try DocumentLimits.validate(document.fields), IndexEntries.of(document.fields))
        }
        try writer.submit(size: documents.count) { transaction in
            for (document, data, entries) in prepared {
                try transaction.importDocument(document, data: data, entries: entries, replacing: replacing)
            }
        }
    }
}

/// A reader inside one read transaction, listing documents in transfer order: collections by path, then each
/// collection's documents by ID, both through their unique indexes (no sort, no scan of what was listed before).
struct SQLiteDocumentSnapshot: DocumentSnapshot {
    let connection: SQLiteConnection

    func documentCount() throws -> Int64 {
        try connection.rows("SELECT count(*) FROM docs").first?[0].int ?? 0
    }

    func documents(after position: DocumentPath?, limit: Int) throws -> [Document] {
        var found: [Document] = []
        guard limit > 0 else { return found }
        // The collection being listed and the last ID listed in it.
        var current: (cid: Int64, path: CollectionPath)?
        var afterID = ""
        var afterCollection = ""
        if let position {
            afterCollection = position.collection.description
            afterID = position.id
            if let cid = try connection.rows(
                "SELECT cid FROM collections WHERE path = ?", [.text(afterCollection)]
            ).first?[0].int {
                current = (cid, position.collection)
            }
        }
        while found.count < limit {
            if current == nil {
                // The next collection after the last one listed ('' sorts before every path).
                let next = try connection.rows(
                    "SELECT cid, path FROM collections WHERE path > ? ORDER BY path LIMIT 1",
                    [.text(afterCollection)])
                guard let row = next.first, let cid = row[0].int, let path = row[1].text else { break }
                current = (cid, try CollectionPath(path))
                afterCollection = path
                afterID = ""
            }
            guard let (cid, collection) = current else { break }
            let wanted = limit - found.count
            let rows = try connection.rows(
                "SELECT id, data, ctime, utime, version FROM docs WHERE cid = ? AND id > ? ORDER BY id LIMIT ?",
                [.int(cid), .text(afterID), .int(Int64(wanted))])
            for row in rows {
                let path = try collection.document(row[0].text ?? "")
                found.append(
                    try SQLiteRows.document(path: path, data: row[1], ctime: row[2], utime: row[3], version: row[4]))
            }
            if rows.count < wanted {
                current = nil  // this collection is done
            } else if let last = found.last {
                afterID = last.id
            }
        }
        return found
    }
}

extension SQLiteWriteTransaction {
    /// Stores `document` with its own times and version (an import), its index entries and a change-log entry.
    func importDocument(_ document: Document, data: [UInt8], entries: [IndexEntry], replacing: Bool) throws {
        let path = document.path
        let (knownCid, stored) = try self.document(at: path)
        let cid = try knownCid ?? cid(of: path.collection, create: true) ?? 0
        if let stored {
            guard replacing else { throw APIError.alreadyExists("document \(path) already exists") }
            try updateDocument(
                cid: cid, id: path.id, data: data, time: document.updateTime, version: document.version,
                oldFields: stored.document.fields, newEntries: entries)
            try connection.run(
                "UPDATE docs SET ctime = ? WHERE cid = ? AND id = ?",
                [.int(document.createTime), .int(cid), .text(path.id)])
        } else {
            try connection.run(
                "INSERT INTO docs(cid, id, data, ctime, utime, version) VALUES(?, ?, ?, ?, ?, ?)",
                [
                    .int(cid), .text(path.id), .blob(data), .int(document.createTime), .int(document.updateTime),
                    .int(document.version),
                ])
            try insertEntries(entries, cid: cid, id: path.id)
        }
        try updateCompositeEntries(path, cid: cid, old: stored?.document.fields, new: document.fields)
        try appendChange(
            path: path, kind: stored == nil ? .created : .updated, version: document.version,
            time: document.updateTime, createTime: document.createTime, before: stored, after: data)
    }
}
