import KuraCore
import KuraModel
import KuraPostgres
import KuraStore

/// A batch of nothing but blind creates, as one transaction sent in one round trip.
///
/// The usual batch takes three round trips (BEGIN with its locks; the inserts; the change entries with COMMIT), and
/// the writer waits for the first two before it can send the third. A batch whose every commit is a blind create in
/// a collection this node knows needs no answer from the database before its COMMIT: one statement (`batchSQL`)
/// inserts the documents that do not exist yet, their index and composite entries, numbers a change entry for each
/// document it inserted from `ChangeSequence`, inserts those and sends NOTIFY; BEGIN, the locks, that statement and
/// COMMIT go out together in one pipeline (`sendCreateBatch`), and the writer reads the answer later
/// (`awaitCreateBatch`). That cuts each create's time in the writer by two round trips, so more creates gather for
/// the next batch while one commits: the span other committers wait for (the commit's WAL flush) is then shared by
/// more of them (docs/design/scaling.md, "Change-log order on PostgreSQL").
///
/// The statement takes the change numbers only after the documents, their index entries and composite entries are
/// in, as the last step of the transaction, the same as `finish`: `k` counts all three inserts, and the counter's
/// `UPDATE` reads `k`. (A data-modifying CTE that nothing reads runs when the statement ends, so without that
/// count the index entries, most of the batch's work, were written while the batch held the counter row, and
/// every other node's batch waited for them.) The composite indexes the rows were planned with are checked inside the
/// statement: when the catalog changed since this node loaded it, the statement inserts nothing and commits an
/// empty transaction, and the writer reloads the catalog and runs the creates again as a usual batch.
extension PostgresWriteTransaction {
    /// A create batch whose pipeline was sent (`sendCreateBatch`) and not answered yet.
    struct SentCreateBatch {
        var pipeline: PostgresConnection.SentPipeline
        var plan: CreatePlan
        var catalogVersion: Int64
    }

    /// What a create batch came to.
    enum CreateBatchOutcome {
        /// Committed: each create's result, nil where its path existed already (it fails alone, ALREADY_EXISTS).
        case committed([WriteResult?], newest: Int64?)
        /// Nothing was written: the composite catalog is at `version`, not at the one the rows were planned with.
        case catalogChanged(version: Int64)
    }

    /// Sends the transaction of `creates` (each a blind create: `PreparedWrite.isBlindCreate`) with the advisory
    /// locks of `keys`, planned with the composite indexes of catalog `catalogVersion`, on `connection`, and returns
    /// without waiting; nil (nothing sent) when a create's collection is not known to this node yet (its cid must be
    /// read or inserted first: a usual batch does that).
    func sendCreateBatch(_ creates: [PreparedWrite], locking keys: Set<Int64>, catalogVersion: Int64) throws
        -> SentCreateBatch?
    {
        guard let plan = try planCreates(creates, knownCollectionsOnly: true) else { return nil }
        var statements = [
            PipelinedStatement("BEGIN ISOLATION LEVEL READ COMMITTED", prepared: true),
            PipelinedStatement(
                "SELECT pg_advisory_xact_lock_shared($1)", [.int(PostgresDocumentSchema.catalogLock)], prepared: true),
        ]
        let locks = Self.lockOrder(keys).flatMap { $0 }
        if !locks.isEmpty {
            // The calls run in the array's order, which is `lockOrder`'s.
            statements.append(
                PipelinedStatement(
                    "SELECT count(pg_advisory_xact_lock(k)) FROM unnest($1::bigint[]) AS k", [.intArray(locks)],
                    prepared: true))
        }
        statements.append(
            PipelinedStatement(
                Self.batchSQL,
                plan.rows.bindings + [
                    .bytesArray(plan.rows.paths), .int(catalogVersion),
                    .text(PostgresDocumentSchema.changeSequence.name), .int(Int64(Change.Kind.created.rawValue)),
                    .text(PostgresDocumentSchema.notifyChannel),
                ], resultFormat: .binary, prepared: true))
        statements.append(PipelinedStatement("COMMIT", prepared: true))
        let pipeline = try connection.send(statements)
        return SentCreateBatch(pipeline: pipeline, plan: plan, catalogVersion: catalogVersion)
    }

    /// Waits until the create batch `sent` on `connection` committed (throws if it did not; the caller then rolls
    /// back) and returns what it came to.
    func awaitCreateBatch(_ sent: SentCreateBatch, on connection: PostgresConnection) throws -> CreateBatchOutcome {
        let results = try connection.results(of: sent.pipeline)
        guard results.count >= 2 else {
            throw PostgresError(kind: .protocolViolation, message: "a create batch's pipeline answered too little")
        }
        let inserted = results[results.count - 2]
        guard inserted.rowCount >= 1, let version = try inserted.int(0, 2) else {
            throw PostgresError(kind: .protocolViolation, message: "a create batch's statement returned no summary")
        }
        if version != sent.catalogVersion { return .catalogChanged(version: version) }
        return .committed(try sent.plan.results(inserted: inserted, firstRow: 1), newest: try inserted.int(0, 3))
    }

    /// The batch's one statement. Parameters: `$1`–`$18` the rows (`CreateRows.bindings`), `$19` their paths,
    /// `$20` the catalog version they were planned with, `$21` the change sequence's name, `$22` the change kind
    /// "created", `$23` the NOTIFY channel. Its first row holds the catalog version (column 2) and the newest
    /// change number (column 3); each further row the `cid, id` of a document inserted. If the counter row were
    /// missing, the numbers would be NULL and the statement fail, so COMMIT never runs without the entries.
    private static let batchSQL = """
        WITH v AS MATERIALIZED (SELECT version FROM composite_catalog),
        \(insertCTEs(when: "(SELECT version FROM v) = $20")),
        k AS MATERIALIZED (SELECT count(*) AS n, (SELECT count(*) FROM e) AS ne, (SELECT count(*) FROM x) AS nx
            FROM d),
        r AS (UPDATE \(ChangeSequence.table) SET last_value = last_value + (SELECT n FROM k) WHERE name = $21
            RETURNING last_value),
        c AS (INSERT INTO changes(\(PostgresRows.changeColumns))
            SELECT r.last_value - k.n + row_number() OVER (ORDER BY u.o), u.path, $22, 1, u.t, u.t, NULL, NULL,
                NULL, u.data
            FROM unnest($1::bigint[], $2::bytea[], $3::bytea[], $4::bigint[], $19::bytea[])
                WITH ORDINALITY AS u(cid, id, data, t, path, o)
            JOIN d ON d.cid = u.cid AND d.id = u.id
            CROSS JOIN k LEFT JOIN r ON true),
        n AS MATERIALIZED (SELECT r.last_value AS seq,
            CASE WHEN (SELECT n FROM k) > 0 THEN pg_notify($23, r.last_value::text) END AS notified FROM r)
        SELECT NULL::bigint, NULL::bytea, (SELECT version FROM v), (SELECT seq FROM n)
        UNION ALL SELECT cid, id, NULL, NULL FROM d
        """
}
