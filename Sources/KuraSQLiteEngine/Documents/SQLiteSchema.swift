import KuraModel
import KuraSQLite
import KuraStore

/// The SQLite schema and its index scheme.
///
/// ## Tables
/// - `collections(cid, path, group_id, pkey)`: every collection path ever written gets a small integer `cid`
///   (keeps index rows short). `group_id` is the last segment (collection-group queries), `pkey` an
///   order-preserving encoding of the path's segments.
/// - `docs(rid, cid, id, data, ctime, utime, version)`: one row per live document; `data` is the compact JSON of
///   the fields; times are microseconds. Unique on `(cid, id)`, which also gives the `id` order; `(cid, ctime, id)`
///   and `(cid, utime, id)` index the metadata times.
/// - `idx(cid, field, kind, value, id)` WITHOUT ROWID, primary key = all columns: Firestore-style automatic
///   single-field indexes. For every field path `p` of a document (nested objects are indexed at every level) there
///   is a `kind = 0` row whose `value` is `IndexKey.encode(value at p)`; for arrays, one `kind = 1` row per distinct
///   element (for array-contains). `IndexKey` bytes compare with `memcmp` exactly like Firestore's cross-type value
///   order, so `value` ranges are type ranges and ORDER BY value is Firestore's order. `field` is the canonical
///   dotted field path. Rows are diffed on every write (only changed entries are deleted/inserted).
/// - `composite_indexes(iid, definition, state, scanned, build_rid, message)`: declared composite indexes
///   (`CompositeIndex`, definition as its `firestore.indexes.json` JSON), their build state and the documents the
///   build scanned (`build_rid` is unused: a build that a restart interrupted starts over). AUTOINCREMENT: an
///   `iid` is never reused, so entries of a dropped index still being deleted cannot be mistaken for a new one's.
/// - `cidx(iid, scope, key, cid, id)` WITHOUT ROWID, primary key `(iid, scope, key)`: composite index entries.
///   `scope` is the collection's cid for COLLECTION indexes and 0 for COLLECTION_GROUP ones; `key` is
///   `CompositeIndexKey` (the indexed values with directions, then the ID, then for groups the collection path),
///   so one range of keys, walked forwards or backwards, is exactly a query's results in order. Kept by every
///   write in the same transaction as the document.
/// - `changes(seq, path, kind, version, time, ctime, old_utime, old_version, old_data, new_data)`: the change log,
///   appended in the same transaction as the write; AUTOINCREMENT so a sequence is never reused even after
///   pruning. It keeps the document's stored JSON before (`old_*`, NULL for creates) and after (`new_data`, NULL
///   for deletes) each write, so listeners can replay exactly what happened after any retained sequence.
///
/// ## Query evaluation
/// Every query becomes one SQL statement that walks an index in the requested order and stops at the limit:
/// - The *driver* is the index of the first orderBy key: `idx` rows of that field (inequality / `==` / `in` on
///   that field become bounds on `value`), or `docs` by `id` / `ctime` / `utime`. When ordering only by `id` and
///   there is an `==` or `array-contains` filter, that filter's index range (sorted by `id` within one value) is
///   the driver instead.
/// - Other `==`, `in`, `array-contains`, `array-contains-any` filters are `EXISTS` probes on the full `idx` primary
///   key (one B-tree lookup per candidate). Firestore's rule that all inequalities are on the first orderBy field
///   guarantees inequalities are always driver bounds, never probes.
/// - Secondary orderBy keys are computed by `kura_field(data, field)`; SQLite sorts only within runs of equal
///   driver values ("USE TEMP B-TREE FOR RIGHT PART OF ORDER BY") and still stops at the limit.
/// - Cursors and page tokens are row-value conditions on the sort keys, plus a plain bound on the driver so the
///   seek starts at the cursor.
///
/// So `where a == x orderBy b limit 20` scans `b`'s index from the start and probes `a` per row: the rows examined
/// are about `20 / selectivity(a == x)` — cheap for common values, a long walk for a value that (almost) no
/// document has. A declared composite index `(a, b)` that fits (`CompositeScan`) answers it instead: the planner
/// prefers a READY composite index whenever one fits, and then reads only the entries it returns.
/// Collection-group queries drive over every collection of the group and sort the union (cost ∝ matches).
enum SQLiteSchema {
    static let statements = """
        CREATE TABLE IF NOT EXISTS collections(
            cid INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, group_id TEXT NOT NULL, pkey BLOB NOT NULL);
        CREATE INDEX IF NOT EXISTS collections_group ON collections(group_id, pkey);
        CREATE TABLE IF NOT EXISTS docs(
            rid INTEGER PRIMARY KEY, cid INTEGER NOT NULL, id TEXT NOT NULL, data BLOB NOT NULL,
            ctime INTEGER NOT NULL, utime INTEGER NOT NULL, version INTEGER NOT NULL, UNIQUE(cid, id));
        CREATE INDEX IF NOT EXISTS docs_ctime ON docs(cid, ctime, id);
        CREATE INDEX IF NOT EXISTS docs_utime ON docs(cid, utime, id);
        CREATE TABLE IF NOT EXISTS idx(
            cid INTEGER NOT NULL, field TEXT NOT NULL, kind INTEGER NOT NULL, value BLOB NOT NULL, id TEXT NOT NULL,
            PRIMARY KEY(cid, field, kind, value, id)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS composite_indexes(
            iid INTEGER PRIMARY KEY AUTOINCREMENT, definition TEXT NOT NULL UNIQUE, state TEXT NOT NULL,
            scanned INTEGER NOT NULL DEFAULT 0, build_rid INTEGER NOT NULL DEFAULT 0, message TEXT);
        CREATE TABLE IF NOT EXISTS cidx(
            iid INTEGER NOT NULL, scope INTEGER NOT NULL, key BLOB NOT NULL, cid INTEGER NOT NULL, id TEXT NOT NULL,
            PRIMARY KEY(iid, scope, key)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS changes(
            seq INTEGER PRIMARY KEY AUTOINCREMENT, path TEXT NOT NULL, kind INTEGER NOT NULL,
            version INTEGER NOT NULL, time INTEGER NOT NULL, ctime INTEGER, old_utime INTEGER, old_version INTEGER,
            old_data BLOB, new_data BLOB);
        """

    /// Columns added to `changes` after the first release, added to older databases on open (their earlier
    /// entries have no document states).
    static let addedChangeColumns = [
        ("ctime", "INTEGER"), ("old_utime", "INTEGER"), ("old_version", "INTEGER"), ("old_data", "BLOB"),
        ("new_data", "BLOB"),
    ]

    /// Creates missing tables and adds missing columns.
    static func create(on connection: SQLiteConnection) throws {
        try connection.execute(statements)
        let existing = Set(try connection.rows("PRAGMA table_info(changes)").compactMap { $0[1].text })
        for (name, type) in addedChangeColumns where !existing.contains(name) {
            try connection.execute("ALTER TABLE changes ADD COLUMN \(name) \(type)")
        }
    }

    /// Index kind of a row holding a field's whole value.
    static let valueKind: Int64 = 0
    /// Index kind of a row holding one element of an array field.
    static let elementKind: Int64 = 1
}
