import KuraCore
import KuraModel
import KuraPostgres
import KuraStore

/// Composite index entries, kept by every write of a document inside its batch transaction
/// (`CommitTransaction.updateCompositeEntries`, so an acknowledged write is in every index it belongs to, on
/// whichever node it was written).
extension PostgresWriteTransaction {
    func deleteCompositeEntry(iid: Int64, scope: Int64, key: [UInt8]) throws {
        modifications += 1
        try connection.query(
            "DELETE FROM cidx WHERE iid = $1 AND scope = $2 AND key = $3", [.int(iid), .int(scope), .bytes(key)],
            prepared: true)
    }

    func insertCompositeEntry(iid: Int64, scope: Int64, key: [UInt8], cid: Int64, id: String) throws {
        modifications += 1
        try Self.insertCompositeEntry(connection, iid: iid, scope: scope, key: key, cid: cid, id: id)
    }

    /// Inserts one entry; the build and a write may both add the entry of a document written during the build.
    static func insertCompositeEntry(
        _ connection: PostgresConnection, iid: Int64, scope: Int64, key: [UInt8], cid: Int64, id: String
    ) throws {
        try connection.query(
            "INSERT INTO cidx(iid, scope, key, cid, id) VALUES($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
            [.int(iid), .int(scope), .bytes(key), .int(cid), PostgresRows.name(id)], prepared: true)
    }
}
