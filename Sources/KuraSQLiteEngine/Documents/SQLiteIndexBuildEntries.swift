import KuraSQLite

/// One entry of a composite index build, computed from a document as a read connection saw it: where it goes in
/// `cidx`, the document it belongs to, and that document's version and data fingerprint at the time, so the writer
/// can tell whether the document changed before the entry was written.
struct IndexBuildEntry {
    var scope: Int64
    var key: [UInt8]
    var cid: Int64
    var id: String
    var version: Int64
    var fingerprint: Int64

    /// FNV-1a over a document's stored data: equal data, equal fingerprint.
    static func fingerprint(_ data: [UInt8]) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }
}

/// The entries of one composite index build, sorted by key: filled from read connections (off the writer thread),
/// then handed to the writer in key order, so that each build step adds a run of neighbouring keys and its
/// transaction writes a few `cidx` pages, not one page per entry.
///
/// They live in a private temporary SQLite database (SQLite's own temporary file, deleted when the connection
/// closes or the process ends), which sorts them on disk when they do not fit in its cache: a build of millions of
/// documents holds no more than that cache in memory. Used by one thread at a time (the index build's).
final class SQLiteIndexBuildEntries {
    private let connection: SQLiteConnection
    /// The entries in key order, once `add` is over (`next`).
    private var sorted: SQLiteStatement?
    /// The row `next` read ahead of the last step (to know whether that step was the last).
    private var pending: IndexBuildEntry?
    private var exhausted = false
    /// Entries added so far.
    private(set) var count: Int64 = 0

    init() throws {
        connection = try SQLiteConnection(path: "")
        try connection.execute(
            """
            PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -8192;
            CREATE TABLE entries(
                scope INTEGER NOT NULL, key BLOB NOT NULL, cid INTEGER NOT NULL, id TEXT NOT NULL,
                version INTEGER NOT NULL, fingerprint INTEGER NOT NULL);
            """)
    }

    /// Adds `entries` (in any order).
    func add(_ entries: [IndexBuildEntry]) throws {
        if entries.isEmpty { return }
        try connection.run("BEGIN")
        do {
            for entry in entries {
                try connection.run(
                    "INSERT INTO entries(scope, key, cid, id, version, fingerprint) VALUES(?, ?, ?, ?, ?, ?)",
                    [
                        .int(entry.scope), .blob(entry.key), .int(entry.cid), .text(entry.id), .int(entry.version),
                        .int(entry.fingerprint),
                    ])
            }
            try connection.run("COMMIT")
        } catch {
            try? connection.run("ROLLBACK")
            throw error
        }
        count += Int64(entries.count)
    }

    /// The next up to `limit` entries in key order (after every `add`), and whether they are the last ones.
    func next(_ limit: Int) throws -> (entries: [IndexBuildEntry], last: Bool) {
        if sorted == nil {
            sorted = try connection.statement(
                "SELECT scope, key, cid, id, version, fingerprint FROM entries ORDER BY scope, key")
        }
        var entries: [IndexBuildEntry] = []
        entries.reserveCapacity(limit)
        if let pending {
            entries.append(pending)
            self.pending = nil
        }
        while entries.count < limit, let entry = try read() { entries.append(entry) }
        if !exhausted && pending == nil { pending = try read() }
        return (entries, pending == nil)
    }

    private func read() throws -> IndexBuildEntry? {
        guard !exhausted, let sorted else { return nil }
        guard try sorted.step() else {
            exhausted = true
            sorted.reset()
            return nil
        }
        return IndexBuildEntry(
            scope: sorted.column(0).int ?? 0, key: sorted.column(1).blob ?? [], cid: sorted.column(2).int ?? 0,
            id: sorted.column(3).text ?? "", version: sorted.column(4).int ?? 0,
            fingerprint: sorted.column(5).int ?? 0)
    }
}
