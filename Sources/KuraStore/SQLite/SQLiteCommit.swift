import KuraCore

/// Applies one commit's writes inside the writer's transaction (its own savepoint): reads each document,
/// computes the outcome with `WriteApplier`, stores it with its index entries, and appends to the change log.
enum SQLiteCommit {
    static func apply(_ writes: [Write], in transaction: SQLiteWriteTransaction) throws -> [WriteResult] {
        let commitTime = transaction.nextCommitTime()
        var results: [WriteResult] = []
        results.reserveCapacity(writes.count)
        for write in writes {
            let (knownCid, existing) = try transaction.document(at: write.path)
            let id = write.path.id
            guard let fields = try WriteApplier.apply(write, to: existing, commitTime: commitTime) else {
                if let existing, let knownCid {
                    try transaction.remove(cid: knownCid, id: id, fields: existing.fields)
                    try transaction.appendChange(path: write.path, kind: .deleted, version: 0, time: commitTime)
                }
                results.append(WriteResult(path: write.path, version: 0, updateTime: commitTime))
                continue
            }
            let data = try DocumentLimits.validate(fields)
            let version = (existing?.version ?? 0) + 1
            let cid = try knownCid ?? transaction.cid(of: write.path.collection, create: true) ?? 0
            try transaction.store(
                cid: cid, id: id, data: data, createTime: existing?.createTime ?? commitTime, updateTime: commitTime,
                version: version, oldFields: existing?.fields, newFields: fields)
            try transaction.appendChange(
                path: write.path, kind: existing == nil ? .created : .updated, version: version, time: commitTime)
            results.append(WriteResult(path: write.path, version: version, updateTime: commitTime))
        }
        return results
    }
}
