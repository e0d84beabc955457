import KuraPostgres

/// The schema steps for documents, composite indexes and the change log (versions 100–199; PostgresSchema.swift).
///
/// The tables are the SQLite engine's (`SQLiteSchema` documents the index scheme), in PostgreSQL types:
/// - Paths, collection IDs, document IDs and field paths are `bytea` (their UTF-8 bytes): names have byte identity
///   (a `text` column would compare under the database's collation, and cannot hold U+0000, which IDs may).
///   `bytea` orders by `memcmp`, as SQLite orders its TEXT and BLOB columns.
/// - `idx.value` and `cidx.key` are `IndexKey` / `CompositeIndexKey` bytes, whose `memcmp` order is Firestore's
///   value order, so the same range scans work unchanged.
/// - `docs.vfields` and `docs.vkeys` (step 101) hold a document's fields and the `IndexKey` of each field's whole
///   value (its `idx` rows of kind 0), in two arrays of one order: `vkeys[array_position(vfields, f)]` is how a
///   query sorts by a second orderBy field `f` (SQLite computes that key from the document with a function of its
///   own). Step 100 had an index on `idx` for that lookup (`idx_doc`); five more index entries per document of
///   five fields, the largest part of a create's cost after the rows themselves, for a lookup only some queries
///   make. Every insert and update of a document row writes both arrays.
/// - `changes.seq` comes from the counter row `documents` of `ChangeSequence` (docs/design/scaling.md, "Change-log
///   order on PostgreSQL"), taken by each batch as its last statement before COMMIT, so sequences are dense and
///   become visible in order across every node.
/// - `composite_catalog` holds one number that changes whenever the set or state of composite indexes changes;
///   each write batch reads it (under a shared advisory lock that declaring or dropping an index takes
///   exclusively), so every node's writes keep every index being built (PostgresDocumentStore+CompositeIndexes).
enum PostgresDocumentSchema {
    /// The `ChangeSequence` the change log numbers its entries from.
    static let changeSequence = ChangeSequence(name: "documents")

    static let migrations: [SchemaMigration] = [
        SchemaMigration(
            version: 100, name: "documents",
            sql: """
                CREATE TABLE collections(
                    cid bigserial PRIMARY KEY, path bytea NOT NULL UNIQUE, group_id bytea NOT NULL,
                    pkey bytea NOT NULL);
                CREATE INDEX collections_group ON collections(group_id, pkey);
                CREATE TABLE docs(
                    rid bigserial PRIMARY KEY, cid bigint NOT NULL, id bytea NOT NULL, data bytea NOT NULL,
                    ctime bigint NOT NULL, utime bigint NOT NULL, version bigint NOT NULL, UNIQUE(cid, id));
                CREATE INDEX docs_ctime ON docs(cid, ctime, id);
                CREATE INDEX docs_utime ON docs(cid, utime, id);
                CREATE TABLE idx(
                    cid bigint NOT NULL, field bytea NOT NULL, kind bigint NOT NULL, value bytea NOT NULL,
                    id bytea NOT NULL, PRIMARY KEY(cid, field, kind, value, id));
                CREATE INDEX idx_doc ON idx(cid, field, id) WHERE kind = 0;
                CREATE TABLE composite_indexes(
                    iid bigserial PRIMARY KEY, definition text NOT NULL UNIQUE, state text NOT NULL,
                    scanned bigint NOT NULL DEFAULT 0, build_rid bigint NOT NULL DEFAULT 0, message text);
                CREATE TABLE composite_catalog(one int PRIMARY KEY CHECK (one = 1), version bigint NOT NULL);
                INSERT INTO composite_catalog VALUES (1, 0);
                CREATE TABLE cidx(
                    iid bigint NOT NULL, scope bigint NOT NULL, key bytea NOT NULL, cid bigint NOT NULL,
                    id bytea NOT NULL, PRIMARY KEY(iid, scope, key));
                CREATE TABLE changes(
                    seq bigint PRIMARY KEY, path bytea NOT NULL, kind bigint NOT NULL, version bigint NOT NULL,
                    time bigint NOT NULL, ctime bigint, old_utime bigint, old_version bigint, old_data bytea,
                    new_data bytea);
                CREATE TABLE IF NOT EXISTS \(ChangeSequence.table) (
                    name text PRIMARY KEY, last_value bigint NOT NULL DEFAULT 0);
                INSERT INTO \(ChangeSequence.table) (name) VALUES ('documents') ON CONFLICT (name) DO NOTHING
                """),
        SchemaMigration(
            version: 101, name: "document value keys",
            sql: """
                ALTER TABLE docs ADD COLUMN vfields bytea[] NOT NULL DEFAULT '{}',
                    ADD COLUMN vkeys bytea[] NOT NULL DEFAULT '{}'
                """, work: PostgresValueKeys.fill),
    ]

    /// Index kind of a row holding a field's whole value.
    static let valueKind: Int64 = 0
    /// Index kind of a row holding one element of an array field.
    static let elementKind: Int64 = 1
    /// The advisory lock writers take shared and index declarations take exclusively ("kura.cix").
    static let catalogLock: Int64 = 0x6B75_7261_2E63_6978
    /// The NOTIFY channel that carries the newest sequence of each committed batch.
    static let notifyChannel = "kura_changes"
}
