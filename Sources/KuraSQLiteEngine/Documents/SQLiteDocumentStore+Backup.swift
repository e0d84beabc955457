import CSQLite
import Foundation
import KuraCore
import KuraModel
import KuraSQLite
import KuraStore

extension SQLiteDocumentStore {
    /// Writes a consistent copy of the whole database to the file at `path` (replacing it) with SQLite's online
    /// backup API. The copy is taken from one read snapshot in a single step, so writers keep committing
    /// meanwhile and the copy reflects exactly the commits before it started.
    public func backup(to path: String) throws {
        try readers.withConnection { source in try Self.copy(from: source, to: path) }
    }

    /// Backs up the database file at `database` from another process (`kura backup`) while a server may be
    /// writing to it: a read-only connection sees one WAL snapshot, so the copy is consistent.
    public static func backup(databaseAt database: String, to path: String) throws {
        guard FileManager.default.fileExists(atPath: database) else {
            throw APIError.notFound("no database at \(database)")
        }
        let source = try SQLiteConnection(path: database, readOnly: true)
        try copy(from: source, to: path)
    }

    /// The copy is written beside `path` and renamed into place, so `path` is never a half-written file. The file
    /// is mode 0600 whatever the umask (it holds every document, like the data directory, which is 0700); it is
    /// created here before SQLite opens it, and SQLite gives the files it makes beside a database (its journal)
    /// the database file's mode.
    private static func copy(from source: SQLiteConnection, to path: String) throws {
        try copy(from: source, to: path) { source, partial in try copyPages(from: source, to: partial) }
    }

    private static func copy(
        from source: SQLiteConnection, to path: String,
        pages: (_ source: SQLiteConnection, _ partial: String) throws -> Void
    ) throws {
        let partial = path + ".partial"
        // Leftovers of a copy that was stopped: a stale journal would be rolled into the new copy.
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(partial + suffix) }
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw APIError.unavailable("cannot create \(partial): \(String(cString: strerror(errno)))")
        }
        let modeSet = fchmod(descriptor, 0o600) == 0
        Glibc.close(descriptor)
        do {
            guard modeSet else {
                throw APIError.unavailable("cannot set the mode of \(partial): \(String(cString: strerror(errno)))")
            }
            try pages(source, partial)
        } catch {
            unlink(partial)
            throw error
        }
        guard rename(partial, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw APIError.unavailable("cannot move the backup to \(path): \(reason)")
        }
    }

    private static func copyPages(
        from source: SQLiteConnection, to path: String, pagesPerStep: Int32 = -1,
        progress: (_ copied: Int, _ total: Int) -> Void = { _, _ in }
    ) throws {
        let destination = try SQLiteConnection(path: path)
        let backup = try SQLiteBackup(from: source, to: destination)
        try backup.copy(pagesPerStep: pagesPerStep, progress: progress)
    }

    /// Copies the database `source` (in a read transaction) to `path` like `backup(to:)`: a 0600 file written
    /// beside `path` and renamed into place, `pagesPerStep` pages at a time with `progress` after each step.
    static func copy(
        from source: SQLiteConnection, to path: String, pagesPerStep: Int32,
        progress: (_ copied: Int, _ total: Int) -> Void
    ) throws {
        try copy(from: source, to: path) { source, partial in
            try copyPages(from: source, to: partial, pagesPerStep: pagesPerStep, progress: progress)
        }
    }
}

/// A read snapshot of one SQLite database file, taken when it is made and held until it is copied or released:
/// `kura backup` takes one of each database of a data directory before copying any, so the copies all reflect the
/// commits acknowledged before the backup started, however long the copying takes. Writers keep committing
/// meanwhile (WAL); the file's checkpoints cannot pass the snapshot until it is released.
public final class SQLiteSnapshot {
    /// The database file.
    public let path: String
    /// Its size in pages when the snapshot was taken.
    public let pageCount: Int
    private let connection: SQLiteConnection

    /// Opens `path` read-only and begins a read transaction on it (a first read fixes the snapshot).
    public init(databaseAt path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw APIError.notFound("no database at \(path)")
        }
        self.path = path
        connection = try SQLiteConnection(path: path, readOnly: true)
        try connection.execute("BEGIN")
        _ = try connection.rows("SELECT count(*) FROM sqlite_schema")
        pageCount = Int(try connection.rows("PRAGMA page_count").first?.first?.int ?? 0)
    }

    /// Writes the snapshot to `destination` (mode 0600, renamed into place when complete), `pagesPerStep` pages
    /// at a time; `progress` gets the pages copied so far after each step.
    public func copy(to destination: String, pagesPerStep: Int = 4096, progress: (_ copied: Int) -> Void = { _ in })
        throws
    {
        try SQLiteDocumentStore.copy(
            from: connection, to: destination, pagesPerStep: Int32(clamping: max(1, pagesPerStep)),
            progress: { copied, _ in progress(copied) })
    }
}

/// One `sqlite3_backup*`, finished in `deinit`.
private final class SQLiteBackup {
    private let handle: OpaquePointer
    private let destination: SQLiteConnection

    init(from source: SQLiteConnection, to destination: SQLiteConnection) throws {
        guard let handle = sqlite3_backup_init(destination.raw, "main", source.raw, "main") else {
            throw destination.error(sqlite3_errcode(destination.raw), "starting the backup")
        }
        self.handle = handle
        self.destination = destination
    }

    deinit { sqlite3_backup_finish(handle) }

    /// Copies every page, `pagesPerStep` at a time (-1: all in one step, one read snapshot of the source). With the
    /// source inside a read transaction of its own, every step reads that transaction's snapshot.
    func copy(pagesPerStep: Int32, progress: (_ copied: Int, _ total: Int) -> Void) throws {
        while true {
            let rc = sqlite3_backup_step(handle, pagesPerStep)
            let total = Int(sqlite3_backup_pagecount(handle))
            progress(total - Int(sqlite3_backup_remaining(handle)), total)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_OK else { throw destination.error(rc, "copying the backup") }
        }
    }
}
