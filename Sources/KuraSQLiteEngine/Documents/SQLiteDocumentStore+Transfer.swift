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
        let prepared = try CommitApplier.prepareImport(documents)
        if prepared.isEmpty { return }
        try writer.submit(size: documents.count) { transaction in
            for (document, data, entries) in prepared {
                try CommitApplier.importDocument(
                    document, data: data, entries: entries, replacing: replacing, in: transaction)
            }
        }
    }
}

/// A reader inside one read transaction (`CollectionSnapshot` lists the documents in transfer order).
struct SQLiteDocumentSnapshot: CollectionSnapshot {
    let connection: SQLiteConnection

    func documentCount() throws -> Int64 {
        try connection.rows("SELECT count(*) FROM docs").first?[0].int ?? 0
    }

    func cid(ofCollection path: String) throws -> Int64? {
        try connection.rows("SELECT cid FROM collections WHERE path = ?", [.text(path)]).first?[0].int
    }

    func collection(after path: String) throws -> (cid: Int64, path: String)? {
        let next = try connection.rows(
            "SELECT cid, path FROM collections WHERE path > ? ORDER BY path LIMIT 1", [.text(path)])
        guard let row = next.first, let cid = row[0].int, let path = row[1].text else { return nil }
        return (cid, path)
    }

    func documents(in collection: CollectionPath, cid: Int64, after id: String, limit: Int) throws -> [Document] {
        let rows = try connection.rows(
            "SELECT id, data, ctime, utime, version FROM docs WHERE cid = ? AND id > ? ORDER BY id LIMIT ?",
            [.int(cid), .text(id), .int(Int64(limit))])
        return try rows.map { row in
            let path = try collection.document(row[0].text ?? "")
            return try SQLiteRows.document(path: path, data: row[1], ctime: row[2], utime: row[3], version: row[4])
        }
    }
}
