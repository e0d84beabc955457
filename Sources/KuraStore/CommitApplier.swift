import KuraCore
import KuraModel

/// Applies one commit's writes inside an engine's write transaction, the same way for every engine: reads each
/// document, computes the outcome with `WriteApplier`, stores it with its index entries, and appends the change
/// (with both states) to the log. Blind creates (`PreparedWrite.isBlindCreate`) skip the read: the insert's unique
/// key decides `ALREADY_EXISTS`.
package enum CommitApplier {
    /// The results of `writes`, in order, all at one commit time.
    package static func apply(
        _ writes: [PreparedWrite], in transaction: some CommitTransaction
    ) throws -> [WriteResult] {
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
        in transaction: some CommitTransaction, at commitTime: Int64
    ) throws -> WriteResult {
        let path = write.path
        let cid = try transaction.cid(of: path.collection, create: true) ?? 0
        guard
            try transaction.insertDocument(
                cid: cid, id: path.id, data: outcome.data, entries: outcome.entries, time: commitTime)
        else {
            throw APIError.alreadyExists("document \(path) already exists")
        }
        try transaction.insertEntries(outcome.entries, cid: cid, id: path.id)
        if case .create(let fields) = write.operation {
            try transaction.updateCompositeEntries(path, cid: cid, old: nil, new: fields)
        }
        try transaction.appendChange(
            path: path, kind: .created, version: 1, time: commitTime, createTime: commitTime, before: nil,
            after: outcome.data)
        return WriteResult(path: path, version: 1, updateTime: commitTime)
    }

    /// Tries the write up to `insertAttempts` times (see `CommitTransaction.insertAttempts`).
    private static func apply<Transaction: CommitTransaction>(
        _ prepared: PreparedWrite, in transaction: Transaction, at commitTime: Int64
    ) throws -> WriteResult {
        for _ in 0..<Transaction.insertAttempts {
            if let result = try attempt(prepared, in: transaction, at: commitTime) { return result }
        }
        throw CommitError.vanished(prepared.write.path, attempts: Transaction.insertAttempts)
    }

    /// The write's result, or nil when the document it read as missing was there when inserting it (nothing was
    /// changed).
    private static func attempt(
        _ prepared: PreparedWrite, in transaction: some CommitTransaction, at commitTime: Int64
    ) throws -> WriteResult? {
        let write = prepared.write
        let (knownCid, stored) = try transaction.document(at: write.path)
        let existing = stored?.document
        let id = write.path.id
        guard let fields = try write.applied(to: existing, at: commitTime) else {
            if let stored, let knownCid {
                try transaction.remove(cid: knownCid, id: id, fields: stored.document.fields)
                try transaction.updateCompositeEntries(write.path, cid: knownCid, old: stored.document.fields, new: nil)
                try transaction.appendChange(
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
            guard try transaction.insertDocument(cid: cid, id: id, data: data, entries: entries, time: commitTime)
            else {
                return nil
            }
            try transaction.insertEntries(entries, cid: cid, id: id)
        }
        try transaction.updateCompositeEntries(write.path, cid: cid, old: existing?.fields, new: fields)
        try transaction.appendChange(
            path: write.path, kind: existing == nil ? .created : .updated, version: version, time: commitTime,
            createTime: createTime, before: stored, after: data)
        return WriteResult(path: write.path, version: version, updateTime: commitTime)
    }
}

/// An internal inconsistency: the writer read a document as missing and then could not insert it, as many times as
/// its engine tries (`CommitTransaction.insertAttempts`).
package enum CommitError: Error, CustomStringConvertible {
    case vanished(DocumentPath, attempts: Int)

    package var description: String {
        switch self {
        case .vanished(let path, let attempts):
            "document \(path) was read as missing but exists\(attempts > 1 ? ", \(attempts) times" : "") "
                + "(writer invariant broken)"
        }
    }
}
