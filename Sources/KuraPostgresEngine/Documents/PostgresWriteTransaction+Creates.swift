import KuraCore
import KuraModel
import KuraPostgres
import KuraStore

/// Blind creates in bulk: the documents of many single-create commits, their index entries and composite entries,
/// inserted by one statement (arrays bound as parameters and `unnest`ed) instead of two or more per document.
extension PostgresWriteTransaction {
    /// Inserts the documents of `creates` (each a blind create: `PreparedWrite.isBlindCreate`, with its outcome),
    /// each with its own commit time, and queues their change entries in order, as the current job's state
    /// (`keepJobState` keeps it). Returns each create's result, or nil where a document exists at its path already
    /// (that create alone fails, with ALREADY_EXISTS; so does a second create of a path earlier in `creates`). A
    /// thrown error is a `PostgresError`, and the transaction is then aborted.
    func createAll(_ creates: [PreparedWrite]) throws -> [WriteResult?] {
        guard let plan = try planCreates(creates, knownCollectionsOnly: false) else { return [] }
        let inserted = try connection.query(
            Self.createAllSQL, plan.rows.bindings, resultFormat: .binary, prepared: true)
        modifications += inserted.rowCount
        let results = try plan.results(inserted: inserted)
        for (prepared, result) in zip(creates, results) {
            guard let result, let data = prepared.outcome?.data else { continue }
            appendChange(
                path: result.path, kind: .created, version: 1, time: result.updateTime,
                createTime: result.updateTime, before: nil, after: data)
        }
        return results
    }

    /// The rows `creates` insert, with each create's collection and commit time (nil: it fails, being a second
    /// create of its path in `creates` or not a create).
    struct CreatePlan {
        var creates: [PreparedWrite]
        var rows = CreateRows()
        var planned: [(cid: Int64, time: Int64)?] = []

        /// Each create's result, from the documents the insert returned (rows of `cid`, `id` in columns 0 and 1
        /// of `inserted`, from row `firstRow` on): nil where its path existed already.
        func results(inserted: PostgresResult, firstRow: Int = 0) throws -> [WriteResult?] {
            var created: Set<DocumentKey> = []
            for row in firstRow..<inserted.rowCount {
                guard let cid = try inserted.int(row, 0), let id = inserted.bytes(row, 1) else { continue }
                created.insert(DocumentKey(cid: cid, id: id))
            }
            return zip(creates, planned).map { prepared, plan in
                let path = prepared.write.path
                guard let plan, created.contains(DocumentKey(cid: plan.cid, id: Array(path.id.utf8))) else {
                    return nil
                }
                return WriteResult(path: path, version: 1, updateTime: plan.time)
            }
        }
    }

    /// Plans the rows of `creates`: their collections (inserted into `collections` where new, unless
    /// `knownCollectionsOnly`, which makes it return nil instead of asking the database), commit times, index and
    /// composite entries.
    func planCreates(_ creates: [PreparedWrite], knownCollectionsOnly: Bool) throws -> CreatePlan? {
        var plan = CreatePlan(creates: creates)
        plan.planned.reserveCapacity(creates.count)
        var seen: Set<DocumentPath> = []
        for prepared in creates {
            let path = prepared.write.path
            guard let outcome = prepared.outcome, seen.insert(path).inserted else {
                plan.planned.append(nil)
                continue
            }
            let known = cids[path.collection]
            if knownCollectionsOnly && known == nil { return nil }
            let cid = try known ?? cid(of: path.collection, create: true) ?? 0
            let time = nextCommitTime()
            plan.rows.add(path: path, cid: cid, data: outcome.data, entries: outcome.entries, time: time)
            if case .create(let fields) = prepared.write.operation {
                for (iid, index) in composites.maintained(for: path.collection.collectionID) {
                    let scope = index.scope == .collection ? cid : 0
                    for key in Set(
                        CompositeIndexKey.keys(index, fields: fields, id: path.id, collection: path.collection))
                    {
                        plan.rows.addComposite(iid: iid, scope: scope, key: key, cid: cid, id: path.id)
                    }
                }
            }
            plan.planned.append((cid, time))
        }
        return plan
    }

    struct DocumentKey: Hashable {
        var cid: Int64
        var id: [UInt8]
    }

    /// The columns of `createAllSQL`, one array each (and the documents' paths, for change entries made by the
    /// statement itself: `PostgresWriteTransaction+CreateBatch`).
    struct CreateRows {
        var paths: [[UInt8]?] = []
        var cids: [Int64?] = [], ids: [[UInt8]?] = [], data: [[UInt8]?] = [], times: [Int64?] = []
        var entryCids: [Int64?] = [], fields: [[UInt8]?] = [], kinds: [Int64?] = [], values: [[UInt8]?] = []
        var entryIds: [[UInt8]?] = []
        var iids: [Int64?] = [], scopes: [Int64?] = [], keys: [[UInt8]?] = [], keyCids: [Int64?] = []
        var keyIds: [[UInt8]?] = []
        var valueKeys = PostgresValueKeys.Columns()

        mutating func add(path: DocumentPath, cid: Int64, data: [UInt8], entries: [IndexEntry], time: Int64) {
            let id = Array(path.id.utf8)
            paths.append(Array(path.description.utf8))
            cids.append(cid)
            ids.append(id)
            self.data.append(data)
            times.append(time)
            let stored = PostgresRows.stored(entries)
            valueKeys.add(stored: stored)
            for entry in stored {
                entryCids.append(cid)
                fields.append(Array(entry.field.utf8))
                kinds.append(entry.kind)
                values.append(entry.value)
                entryIds.append(id)
            }
        }

        mutating func addComposite(iid: Int64, scope: Int64, key: [UInt8], cid: Int64, id: String) {
            iids.append(iid)
            scopes.append(scope)
            keys.append(key)
            keyCids.append(cid)
            keyIds.append(Array(id.utf8))
        }

        var bindings: [PostgresValue] {
            [
                .intArray(cids), .bytesArray(ids), .bytesArray(data), .intArray(times), .intArray(entryCids),
                .bytesArray(fields), .intArray(kinds), .bytesArray(values), .bytesArray(entryIds), .intArray(iids),
                .intArray(scopes), .bytesArray(keys), .intArray(keyCids), .bytesArray(keyIds),
            ] + valueKeys.bindings
        }
    }

    /// Inserts the documents that do not exist yet (`ON CONFLICT DO NOTHING` neither fails nor aborts), then the
    /// index and composite entries of those inserted (joined to `d`'s rows), and returns the documents inserted.
    private static let createAllSQL = "WITH " + insertCTEs(when: "true") + " SELECT cid, id FROM d"

    /// The common table expressions of `createAllSQL` (parameters `$1`–`$18`: `CreateRows.bindings`): `d` inserts
    /// the documents with their value keys (only if `condition` holds), `e` and `x` their index and composite
    /// entries; `d` returns the `cid, id` of each document inserted, `e` and `x` a row per entry (so a statement
    /// can wait for them).
    static func insertCTEs(when condition: String) -> String {
        """
        d AS (INSERT INTO docs(cid, id, data, ctime, utime, version, vfields, vkeys)
            SELECT u.cid, u.id, u.data, u.t, u.t, 1, ($17::bytea[])[u.s:u.e], ($18::bytea[])[u.s:u.e]
            FROM unnest($1::bigint[], $2::bytea[], $3::bytea[], $4::bigint[], $15::bigint[], $16::bigint[])
                AS u(cid, id, data, t, s, e)
            WHERE \(condition)
            ON CONFLICT (cid, id) DO NOTHING RETURNING cid, id),
        e AS (INSERT INTO idx(cid, field, kind, value, id)
            SELECT u.cid, u.field, u.kind, u.value, u.id
            FROM unnest($5::bigint[], $6::bytea[], $7::bigint[], $8::bytea[], $9::bytea[])
                AS u(cid, field, kind, value, id)
            JOIN d ON d.cid = u.cid AND d.id = u.id RETURNING 1),
        x AS (INSERT INTO cidx(iid, scope, key, cid, id)
            SELECT u.iid, u.scope, u.key, u.cid, u.id
            FROM unnest($10::bigint[], $11::bigint[], $12::bytea[], $13::bigint[], $14::bytea[])
                AS u(iid, scope, key, cid, id)
            JOIN d ON d.cid = u.cid AND d.id = u.id
            ON CONFLICT DO NOTHING RETURNING 1)
        """
    }
}
