import KuraCore
import KuraModel
import KuraPostgres
import KuraStore

/// The end of a batch's transaction: its change entries, numbered from `ChangeSequence`, NOTIFY and COMMIT, sent
/// in one round trip; in two halves (`sendFinish`, `awaitFinish`) so the writer can run its next batch while the
/// COMMIT is in flight.
extension PostgresWriteTransaction {
    /// Takes the sequence numbers of the entries collected, inserts them, notifies the other nodes and commits:
    /// one statement (`finishSQL`) pipelined with COMMIT, so the span during which other committers wait for the
    /// change sequence is one round trip plus the WAL flush. Returns the newest sequence (nil when the batch wrote
    /// no entry).
    @discardableResult
    func finish() throws -> Int64? {
        try awaitFinish(sendFinish(), on: connection)
    }

    /// A batch whose last statement and COMMIT were sent (`sendFinish`) and not answered yet.
    struct SentCommit {
        /// The pipeline in flight (nil: the batch already committed, in several round trips).
        var pipeline: PostgresConnection.SentPipeline?
        var newest: Int64?
        /// The collections the batch inserted, cached once it committed.
        var cids: [CollectionPath: Int64]
    }

    /// The first half of `finish`: sends the batch's last statement and COMMIT and returns without waiting, so
    /// the writer can run its next batch (on another connection) meanwhile. This transaction object is then free
    /// for that batch; `awaitFinish` completes this one.
    func sendFinish() throws -> SentCommit {
        var sent = SentCommit(pipeline: nil, newest: nil, cids: transactionCids)
        if changes.isEmpty {
            try connection.query("COMMIT", prepared: true)
        } else if changes.reduce(0, { $0 + ($1.before?.data.count ?? 0) + ($1.after?.count ?? 0) })
            > Self.maxFinishBytes
        {
            let range = try PostgresDocumentSchema.changeSequence.reserve(changes.count, in: connection)
            try insertChanges(from: range.lowerBound)
            try connection.notify(PostgresDocumentSchema.notifyChannel, payload: String(range.upperBound))
            try connection.query("COMMIT", prepared: true)
            sent.newest = range.upperBound
        } else {
            sent.pipeline = try connection.send([
                PipelinedStatement(Self.finishSQL, finishBindings(), resultFormat: .binary, prepared: true),
                PipelinedStatement("COMMIT", prepared: true),
            ])
        }
        transactionCids = [:]
        changes = []
        return sent
    }

    /// The second half of `finish`: waits until the batch `sent` on `connection` committed (throws if it did
    /// not; the caller then rolls back) and returns its newest sequence.
    @discardableResult
    func awaitFinish(_ sent: SentCommit, on connection: PostgresConnection) throws -> Int64? {
        var newest = sent.newest
        if let pipeline = sent.pipeline {
            newest = try connection.results(of: pipeline).first?.int(0, 0)
        }
        cids.merge(sent.cids) { $1 }
        return newest
    }

    /// Most bytes of document data the change entries of one `finishSQL` statement carry; a batch with more
    /// inserts them in several statements (and one more round trip each) instead.
    static let maxFinishBytes = 64 << 20

    /// Takes the numbers (`ChangeSequence.reserveSQL`), inserts every entry numbered in order (one row per array
    /// element), and sends NOTIFY with the newest number, which it returns. If the counter row were missing, `seq`
    /// would be NULL and the statement fail, so COMMIT never runs without the entries.
    fileprivate static let finishSQL = """
        WITH r AS (\(ChangeSequence.reserveSQL(name: 1, count: 2))),
        c AS (INSERT INTO changes(\(PostgresRows.changeColumns))
            SELECT r.last_value - $2 + u.n, u.path, u.kind, u.version, u.time, u.ctime, u.old_utime, u.old_version,
                u.old_data, u.new_data
            FROM unnest($3::bytea[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[],
                $9::bigint[], $10::bytea[], $11::bytea[])
                WITH ORDINALITY AS u(path, kind, version, time, ctime, old_utime, old_version, old_data, new_data, n)
            LEFT JOIN r ON true)
        SELECT r.last_value, pg_notify($12, r.last_value::text) FROM r
        """

    fileprivate func finishBindings() -> [PostgresValue] {
        [
            .text(PostgresDocumentSchema.changeSequence.name), .int(Int64(changes.count)),
            .bytesArray(changes.map { Array($0.path.description.utf8) }),
            .intArray(changes.map { Int64($0.kind.rawValue) }), .intArray(changes.map(\.version)),
            .intArray(changes.map(\.time)), .intArray(changes.map(\.createTime)),
            .intArray(changes.map { $0.before?.document.updateTime }),
            .intArray(changes.map { $0.before?.document.version }), .bytesArray(changes.map { $0.before?.data }),
            .bytesArray(changes.map(\.after)), .text(PostgresDocumentSchema.notifyChannel),
        ]
    }

    private static let changesPerStatement = 100
    private static let insertChangesSQL: [Int: String] = {
        var statements: [Int: String] = [:]
        for count in 1...changesPerStatement {
            statements[count] =
                "INSERT INTO changes(\(PostgresRows.changeColumns)) VALUES "
                + (0..<count).map { row in
                    "(" + (1...10).map { "$\(row * 10 + $0)" }.joined(separator: ", ") + ")"
                }.joined(separator: ", ")
        }
        return statements
    }()

    fileprivate func insertChanges(from first: Int64) throws {
        var sequence = first
        var pending = changes[...]
        while !pending.isEmpty {
            let chunk = pending.prefix(Self.changesPerStatement)
            pending = pending.dropFirst(chunk.count)
            var bindings: [PostgresValue] = []
            bindings.reserveCapacity(chunk.count * 10)
            for change in chunk {
                bindings += [
                    .int(sequence), PostgresRows.name(change.path.description), .int(Int64(change.kind.rawValue)),
                    .int(change.version), .int(change.time), .int(change.createTime),
                    change.before.map { .int($0.document.updateTime) } ?? .null,
                    change.before.map { .int($0.document.version) } ?? .null,
                    change.before.map { .bytes($0.data) } ?? .null, change.after.map { .bytes($0) } ?? .null,
                ]
                sequence += 1
            }
            try connection.query(Self.insertChangesSQL[chunk.count]!, bindings, prepared: true)
        }
    }
}
