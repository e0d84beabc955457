import Foundation
import KuraCore
import KuraMail
import KuraModel
import KuraSQLiteEngine

#if canImport(Glibc)
    import Glibc
#endif

/// `kura backup DIRECTORY` on the SQLite engine: a new data directory holding everything a server needs to serve
/// the same app to the same users. `kura serve --data DIRECTORY` (or moving it into place) restores it.
///
/// Consistency: a read snapshot of each database (`documents.db`, `accounts.db`, `mail.db`) is taken, one after the
/// other within microseconds, before any page is copied; every write acknowledged before the backup started is in
/// them, and each copy is one database's state at one instant. The databases are separate files, so there is no
/// single instant for all three: a write committed in the window between two snapshots may be in one copy and not
/// the other (an account made between the document and account snapshots, say). The plain files are copied after
/// the snapshots; they are replaced atomically by the server, so each copy is one whole version.
///
/// The copy is written into `DIRECTORY.partial-PID` (mode 0700, files 0600) and renamed to `DIRECTORY` once complete,
/// so `DIRECTORY` is never a half-written backup.
enum DataDirectoryBackup {
    /// The databases, in the order their snapshots are taken; `documents.db` must exist, the others are copied when
    /// present.
    static let databases = ["documents.db", "accounts.db", SQLiteOutboxStore.fileName]
    /// The plain files copied when present: the admin key and ID-token signing keys (so scripts and issued tokens
    /// keep working), the security rules and the composite index definitions.
    static let files = [
        "admin.key", SigningKeyFile.fileName, SecurityRules.fileName, IndexDefinitions.fileName,
    ]
    /// Directories copied (one level of plain files) when present.
    static let directories = ["rules-history"]

    /// What a backup wrote.
    struct Summary {
        /// The files written, relative to the backup directory.
        var files: [String]
        /// Their total size in bytes.
        var bytes: Int64
        /// Seconds from the start to the rename.
        var seconds: Double
    }

    /// Backs up `dataDirectory` into `destination`, which must not exist or be an empty directory.
    static func run(dataDirectory: String, to given: String, logger: Logger) throws -> Summary {
        // `backup/` names the directory `backup`: the partial copy goes beside it, not inside.
        var destination = given
        while destination.count > 1 && destination.hasSuffix("/") { destination.removeLast() }
        let started = MonotonicClock.seconds()
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: destination, isDirectory: &isDirectory) {
            guard isDirectory.boolValue, (try? manager.contentsOfDirectory(atPath: destination))?.isEmpty == true
            else {
                throw ConfigurationError(
                    "\(destination) already exists; give kura backup a new directory (or an empty one)")
            }
        }
        let source = { (name: String) in (dataDirectory as NSString).appendingPathComponent(name) }
        // The snapshots first, all of them, before the (possibly long) copying.
        guard manager.fileExists(atPath: source(databases[0])) else {
            throw APIError.notFound("no database at \(source(databases[0])): nothing to back up")
        }
        let snapshots = try databases.filter { manager.fileExists(atPath: source($0)) }.map {
            (name: $0, snapshot: try SQLiteSnapshot(databaseAt: source($0)))
        }
        logger.info(
            "backup of \(dataDirectory) to \(destination): snapshots of \(snapshots.map(\.name).joined(separator: ", "))"
                + " taken")
        let partial = destination + ".partial-\(getpid())"
        try? manager.removeItem(atPath: partial)
        guard mkdir(partial, 0o700) == 0, chmod(partial, 0o700) == 0 else {
            throw ConfigurationError("cannot create \(partial): \(String(cString: strerror(errno)))")
        }
        do {
            var written: [String] = []
            let totalPages = snapshots.reduce(0) { $0 + $1.snapshot.pageCount }
            let progress = TransferProgress("backup", total: Int64(totalPages), logger: logger, unit: "pages")
            var before = 0
            for (name, snapshot) in snapshots {
                try snapshot.copy(to: (partial as NSString).appendingPathComponent(name)) { copied in
                    progress.advance(by: Int64(before + copied) - progress.done)
                }
                before += snapshot.pageCount
                written.append(name)
            }
            for name in files where manager.fileExists(atPath: source(name)) {
                try copyFile(source(name), to: (partial as NSString).appendingPathComponent(name))
                written.append(name)
            }
            for directory in directories {
                let names = (try? manager.contentsOfDirectory(atPath: source(directory))) ?? []
                guard !names.isEmpty else { continue }
                let target = (partial as NSString).appendingPathComponent(directory)
                guard mkdir(target, 0o700) == 0 else {
                    throw ConfigurationError("cannot create \(target): \(String(cString: strerror(errno)))")
                }
                for name in names.sorted() {
                    let path = source(directory) + "/" + name
                    guard (try? manager.attributesOfItem(atPath: path))?[.type] as? FileAttributeType == .typeRegular
                    else { continue }
                    try copyFile(path, to: target + "/" + name)
                    written.append(directory + "/" + name)
                }
                syncDirectory(target)
            }
            syncDirectory(partial)
            if manager.fileExists(atPath: destination) { rmdir(destination) }
            guard rename(partial, destination) == 0 else {
                throw ConfigurationError(
                    "cannot move the backup to \(destination): \(String(cString: strerror(errno)))")
            }
            syncDirectory(parent(of: destination))
            let bytes = written.reduce(Int64(0)) { total, name in
                let size = (try? manager.attributesOfItem(atPath: destination + "/" + name))?[.size] as? NSNumber
                return total + (size?.int64Value ?? 0)
            }
            let summary = Summary(files: written, bytes: bytes, seconds: MonotonicClock.seconds() - started)
            progress.finish("\(written.count) files, \(bytes) bytes")
            return summary
        } catch {
            try? manager.removeItem(atPath: partial)
            throw error
        }
    }

    /// Copies a plain file to a new 0600 file, synced before it is closed.
    private static func copyFile(_ source: String, to target: String) throws {
        guard let data = FileManager.default.contents(atPath: source) else {
            throw ConfigurationError("cannot read \(source)")
        }
        let fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ConfigurationError("cannot create \(target): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        fchmod(fd, 0o600)
        if let error = writeAll(fd, [UInt8](data)) {
            throw ConfigurationError("cannot write \(target): \(String(cString: strerror(error)))")
        }
        guard fsync(fd) == 0 else {
            throw ConfigurationError("cannot sync \(target): \(String(cString: strerror(errno)))")
        }
    }

    /// The directory `path` is in (`NSString.deletingLastPathComponent` traps on a one-letter relative name).
    static func parent(of path: String) -> String {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    private static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
