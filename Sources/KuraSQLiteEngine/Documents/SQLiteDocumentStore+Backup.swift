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
            try copyPages(from: source, to: partial)
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

    private static func copyPages(from source: SQLiteConnection, to path: String) throws {
        let destination = try SQLiteConnection(path: path)
        let backup = try SQLiteBackup(from: source, to: destination)
        try backup.copyAll()
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

    /// Copies every page in one step (one read snapshot of the source).
    func copyAll() throws {
        let rc = sqlite3_backup_step(handle, -1)
        guard rc == SQLITE_DONE else { throw destination.error(rc, "copying the backup") }
    }
}
