import KuraCore
import KuraModel
import KuraPostgres
import KuraStore

/// `kura export` / `kura import` on PostgreSQL: the snapshot is one `REPEATABLE READ, READ ONLY` transaction on a
/// pooled connection (nodes keep writing meanwhile; the snapshot holds back vacuum of what it can see until it
/// ends); imports go through this node's writer like any commit, so their change-log entries are numbered by
/// `ChangeSequence` and other nodes' listeners and caches see them.
extension PostgresDocumentStore: DocumentTransfer {
    public func withDocumentSnapshot<T>(_ body: (any DocumentSnapshot) throws -> T) throws -> T {
        try pool.withConnection { connection in
            try connection.transaction(isolation: "REPEATABLE READ READ ONLY") { connection in
                try body(PostgresDocumentSnapshot(connection: connection))
            }
        }
    }

    public func importDocuments(_ documents: [Document], replacing: Bool) throws {
        let prepared = try CommitApplier.prepareImport(documents)
        if prepared.isEmpty { return }
        // The paths are locked (in the global order) like any commit's, so a node writing the same documents waits.
        try writer.submit(size: documents.count, paths: documents.map(\.path)) { transaction in
            if !replacing { return try transaction.importNewDocuments(prepared) }
            for (document, data, entries) in prepared {
                try CommitApplier.importDocument(
                    document, data: data, entries: entries, replacing: replacing, in: transaction)
            }
        }
    }
}

/// A reader inside one REPEATABLE READ transaction (`CollectionSnapshot` lists the documents in transfer order;
/// collection paths are `bytea`, so they sort in `memcmp` order).
struct PostgresDocumentSnapshot: CollectionSnapshot {
    let connection: PostgresConnection

    func documentCount() throws -> Int64 {
        try connection.query("SELECT count(*) FROM docs", resultFormat: .binary).int(0, 0) ?? 0
    }

    func cid(ofCollection path: String) throws -> Int64? {
        let rows = try connection.query(
            "SELECT cid FROM collections WHERE path = $1", [PostgresRows.name(path)], resultFormat: .binary,
            prepared: true)
        return rows.rowCount == 1 ? try rows.int(0, 0) : nil
    }

    func collection(after path: String) throws -> (cid: Int64, path: String)? {
        let next = try connection.query(
            "SELECT cid, path FROM collections WHERE path > $1 ORDER BY path LIMIT 1", [PostgresRows.name(path)],
            resultFormat: .binary, prepared: true)
        guard next.rowCount == 1, let cid = try next.int(0, 0) else { return nil }
        return (cid, PostgresRows.text(next, 0, 1))
    }

    func documents(in collection: CollectionPath, cid: Int64, after id: String, limit: Int) throws -> [Document] {
        let rows = try connection.query(
            """
            SELECT id, data, ctime, utime, version FROM docs WHERE cid = $1 AND id > $2 ORDER BY id LIMIT $3
            """, [.int(cid), PostgresRows.name(id), .int(Int64(limit))], resultFormat: .binary, prepared: true)
        return try (0..<rows.rowCount).map { row in
            let path = try collection.document(PostgresRows.text(rows, row, 0))
            return try PostgresRows.document(path: path, rows, row, data: 1, ctime: 2, utime: 3, version: 4)
        }
    }
}

extension PostgresWriteTransaction {
    /// Rows per multi-row INSERT of index entries (5 parameters each, far below libpq's 65,535).
    static let importEntryRows = 1000

    /// Stores a batch of new documents (an import without `replacing`) in a few statements instead of several per
    /// document: one multi-row INSERT of the documents, whose conflicts are the "already exists" check, and
    /// multi-row INSERTs of their index entries. Round trips, not rows, are what an import pays for on PostgreSQL.
    func importNewDocuments(_ batch: [(Document, [UInt8], [IndexEntry])]) throws {
        var cids: [CollectionPath: Int64] = [:]
        for (document, _, _) in batch where cids[document.path.collection] == nil {
            cids[document.path.collection] = try cid(of: document.path.collection, create: true) ?? 0
        }
        var sql = "INSERT INTO docs(cid, id, data, ctime, utime, version, vfields, vkeys) VALUES "
        var parameters: [PostgresValue] = []
        parameters.reserveCapacity(batch.count * 8)
        for (index, (document, data, entries)) in batch.enumerated() {
            let first = index * 8
            sql += (index == 0 ? "" : ", ") + "(" + (1...8).map { "$\(first + $0)" }.joined(separator: ", ") + ")"
            parameters +=
                [
                    .int(cids[document.path.collection] ?? 0), PostgresRows.name(document.path.id), .bytes(data),
                    .int(document.createTime), .int(document.updateTime), .int(document.version),
                ] + PostgresValueKeys(stored: PostgresRows.stored(entries)).bindings
        }
        sql += " ON CONFLICT (cid, id) DO NOTHING RETURNING cid, id"
        let inserted = try connection.query(sql, parameters, resultFormat: .binary)
        modifications += inserted.rowCount
        if inserted.rowCount != batch.count {
            var stored = Set<[UInt8]>()
            for row in 0..<inserted.rowCount {
                stored.insert(Array(String(try inserted.int(row, 0) ?? 0).utf8) + [0] + (inserted.bytes(row, 1) ?? []))
            }
            let existing = batch.first { document, _, _ in
                let key = Array(String(cids[document.path.collection] ?? 0).utf8) + [0] + Array(document.path.id.utf8)
                return !stored.contains(key)
            }
            throw APIError.alreadyExists("document \(existing.map { "\($0.0.path)" } ?? "of the batch") already exists")
        }
        var rows: [(cid: Int64, id: String, entry: IndexEntry)] = []
        for (document, _, entries) in batch {
            let cid = cids[document.path.collection] ?? 0
            for entry in PostgresRows.stored(entries) { rows.append((cid, document.path.id, entry)) }
        }
        var pending = rows[...]
        while !pending.isEmpty {
            let chunk = pending.prefix(Self.importEntryRows)
            pending = pending.dropFirst(chunk.count)
            var values: [String] = []
            var bindings: [PostgresValue] = []
            bindings.reserveCapacity(chunk.count * 5)
            for (index, row) in chunk.enumerated() {
                let first = index * 5
                values.append("($\(first + 1), $\(first + 2), $\(first + 3), $\(first + 4), $\(first + 5))")
                bindings += [
                    .int(row.cid), PostgresRows.name(row.entry.field), .int(row.entry.kind), .bytes(row.entry.value),
                    PostgresRows.name(row.id),
                ]
            }
            let result = try connection.query(
                "INSERT INTO idx(cid, field, kind, value, id) VALUES " + values.joined(separator: ", "), bindings)
            modifications += result.affectedRows
        }
        for (document, data, _) in batch {
            let cid = cids[document.path.collection] ?? 0
            try updateCompositeEntries(document.path, cid: cid, old: nil, new: document.fields)
            appendChange(
                path: document.path, kind: .created, version: document.version, time: document.updateTime,
                createTime: document.createTime, before: nil, after: data)
        }
    }
}
