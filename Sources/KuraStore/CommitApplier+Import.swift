import KuraCore
import KuraModel

/// Imports (`DocumentTransfer.importDocuments`): documents stored as they are, with their own times and versions.
extension CommitApplier {
    /// Documents of one import batch with their encodings and index entries, computed off the writer thread as
    /// `PreparedWrite` does for commits. Throws 400 `INVALID_ARGUMENT` past `CommitLimits.maxWrites` documents or
    /// for a document `DocumentLimits.validate` refuses.
    package static func prepareImport(
        _ documents: [Document]
    ) throws -> [(Document, [UInt8], [IndexEntry])] {
        guard documents.count <= CommitLimits.maxWrites else {
            throw APIError.badRequest("an import batch has at most \(CommitLimits.maxWrites) documents")
        }
        return try documents.map { document in
            (document, try DocumentLimits.validate(document.fields), IndexEntries.of(document.fields))
        }
    }

    /// Stores `document` with its own times and version, its index entries and a change-log entry (`created`, or
    /// `updated` when it replaces one). A document already at its path fails with 409 `ALREADY_EXISTS` unless
    /// `replacing`.
    package static func importDocument(
        _ document: Document, data: [UInt8], entries: [IndexEntry], replacing: Bool,
        in transaction: some CommitTransaction
    ) throws {
        let path = document.path
        let (knownCid, stored) = try transaction.document(at: path)
        let cid = try knownCid ?? transaction.cid(of: path.collection, create: true) ?? 0
        if let stored {
            guard replacing else { throw APIError.alreadyExists("document \(path) already exists") }
            try transaction.updateDocument(
                cid: cid, id: path.id, data: data, time: document.updateTime, version: document.version,
                oldFields: stored.document.fields, newEntries: entries)
            try transaction.setCreateTime(document.createTime, cid: cid, id: path.id)
        } else {
            // False only where another node's writer created it after this transaction read it as missing.
            guard try transaction.insertImportedDocument(document, cid: cid, data: data, entries: entries) else {
                throw APIError.alreadyExists("document \(path) already exists")
            }
            try transaction.insertEntries(entries, cid: cid, id: path.id)
        }
        try transaction.updateCompositeEntries(path, cid: cid, old: stored?.document.fields, new: document.fields)
        try transaction.appendChange(
            path: path, kind: stored == nil ? .created : .updated, version: document.version,
            time: document.updateTime, createTime: document.createTime, before: stored, after: data)
    }
}
