import KuraCore
import KuraModel
import KuraStore

/// Applies one commit's writes inside the writer's batch transaction (the SQLite engine's `SQLiteCommit`, on PostgreSQL): reads each document, computes the outcome with
/// `WriteApplier`, stores it with its index entries, and appends the change (with both states) to the log.
enum PostgresCommit {
    static func apply(_ writes: [PreparedWrite], in transaction: PostgresWriteTransaction) throws -> [WriteResult] {
        let commitTime = transaction.nextCommitTime()
        var results: [WriteResult] = []
        results.reserveCapacity(writes.count)
        for prepared in writes {
            if prepared.isBlindCreate, let outcome = prepared.outcome {
                results.append(try create(prepared.write, outcome, in: transaction, at: commitTime))
            } else {
                results.append(try apply(prepared, in: transaction, at: commitTime))
            }
        }
        return results
    }

    private static func create(
        _ write: Write, _ outcome: (data: [UInt8], entries: [IndexEntry]),
        in transaction: PostgresWriteTransaction, at commitTime: Int64
    ) throws -> WriteResult {
        let path = write.path
        let cid = try transaction.cid(of: path.collection, create: true) ?? 0
        guard try transaction.insertDocument(cid: cid, id: path.id, data: outcome.data, time: commitTime) else {
            throw APIError.alreadyExists("document \(path) already exists")
        }
        try transaction.insertEntries(outcome.entries, cid: cid, id: path.id)
        if case .create(let fields) = write.operation {
            try transaction.updateCompositeEntries(path, cid: cid, old: nil, new: fields)
        }
        transaction.appendChange(
            path: path, kind: .created, version: 1, time: commitTime, createTime: commitTime, before: nil,
            after: outcome.data)
        return WriteResult(path: path, version: 1, updateTime: commitTime)
    }

    /// Another node may insert the document this write found missing before this write inserts it: the insert
    /// then waits for that node's commit and finds the row (`ON CONFLICT DO NOTHING`), and the write is applied
    /// again to what that node committed.
    private static func apply(
        _ prepared: PreparedWrite, in transaction: PostgresWriteTransaction, at commitTime: Int64
    ) throws -> WriteResult {
        for _ in 0..<3 {
            if let result = try attempt(prepared, in: transaction, at: commitTime) { return result }
        }
        throw PostgresCommitError.vanished(prepared.write.path)
    }

    /// The write's result, or nil when another node inserted the document meanwhile (nothing was changed).
    private static func attempt(
        _ prepared: PreparedWrite, in transaction: PostgresWriteTransaction, at commitTime: Int64
    ) throws -> WriteResult? {
        let write = prepared.write
        let (knownCid, stored) = try transaction.document(at: write.path)
        let existing = stored?.document
        let id = write.path.id
        guard let fields = try WriteApplier.apply(write, to: existing, commitTime: commitTime) else {
            if let stored, let knownCid {
                try transaction.remove(cid: knownCid, id: id, fields: stored.document.fields)
                try transaction.updateCompositeEntries(write.path, cid: knownCid, old: stored.document.fields, new: nil)
                transaction.appendChange(
                    path: write.path, kind: .deleted, version: 0, time: commitTime,
                    createTime: stored.document.createTime, before: stored, after: nil)
            }
            return WriteResult(path: write.path, version: 0, updateTime: commitTime)
        }
        let data = try prepared.outcome?.data ?? DocumentLimits.validate(fields)
        let entries = prepared.outcome?.entries ?? IndexEntries.of(fields)
        let version = (existing?.version ?? 0) + 1
        let cid = try knownCid ?? transaction.cid(of: write.path.collection, create: true) ?? 0
        let createTime = existing?.createTime ?? commitTime
        if let existing {
            try transaction.updateDocument(
                cid: cid, id: id, data: data, time: commitTime, version: version, oldFields: existing.fields,
                newEntries: entries)
        } else {
            guard try transaction.insertDocument(cid: cid, id: id, data: data, time: commitTime) else {
                return nil
            }
            try transaction.insertEntries(entries, cid: cid, id: id)
        }
        try transaction.updateCompositeEntries(write.path, cid: cid, old: existing?.fields, new: fields)
        transaction.appendChange(
            path: write.path, kind: existing == nil ? .created : .updated, version: version, time: commitTime,
            createTime: createTime, before: stored, after: data)
        return WriteResult(path: write.path, version: version, updateTime: commitTime)
    }
}

/// An internal inconsistency: the writer read a document as missing and then could not insert it.
enum PostgresCommitError: Error, CustomStringConvertible {
    case vanished(DocumentPath)

    var description: String {
        switch self {
        case .vanished(let path):
            "document \(path) was read as missing but exists, three times (writer invariant broken)"
        }
    }
}
