import Foundation
import KuraCore
import KuraSQLiteEngine

#if canImport(Glibc)
    import Glibc
#endif

/// The checks on the data directory as files: presence, owner and modes, the server's lock, free space.
extension Doctor {
    /// Files that hold secrets or data: they must be readable by their owner only.
    static func isPrivate(_ name: String) -> Bool {
        name == "admin.key" || name.hasPrefix("auth-signing-keys.json") || name.hasSuffix(".db")
            || name.hasSuffix(".db-wal") || name.hasSuffix(".db-shm") || name.hasSuffix(".db-journal")
    }

    /// Whether the directory is there (a finding either way when it is not).
    static func checkDirectory(_ data: String, required: Bool, into findings: inout [DoctorFinding]) -> Bool {
        var info = stat()
        guard stat(data, &info) == 0 else {
            findings.append(
                DoctorFinding(
                    "directory", required ? .fail : .warn, "\(data) does not exist",
                    fix: required
                        ? "point --data at the data directory (kura serve creates a new one at its first start)"
                        : "kura serve creates it at its first start"))
            return false
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            findings.append(
                DoctorFinding("directory", .fail, "\(data) is not a directory", fix: "point --data at a directory"))
            return false
        }
        let mode = info.st_mode & 0o777
        let owner = info.st_uid
        if owner != geteuid() {
            findings.append(
                DoctorFinding(
                    "directory", .warn, "\(data) belongs to uid \(owner), not to this user (uid \(geteuid()))",
                    fix: "run kura as the directory's owner, or chown -R that user \(data)"))
        } else if mode & 0o077 != 0 {
            findings.append(
                DoctorFinding(
                    "directory", .warn,
                    "\(data) is mode \(String(mode, radix: 8)): other users can reach the databases and keys in it",
                    fix: "chmod 700 \(data)"))
        } else {
            findings.append(DoctorFinding("directory", .ok, "\(data): mode \(String(mode, radix: 8)), owned by you"))
        }
        return true
    }

    /// Files readable (secrets, data) or writable (any) by other users than the owner.
    static func checkPermissions(_ data: String, into findings: inout [DoctorFinding]) {
        let manager = FileManager.default
        var names = (try? manager.contentsOfDirectory(atPath: data)) ?? []
        let history = (data as NSString).appendingPathComponent("rules-history")
        names += ((try? manager.contentsOfDirectory(atPath: history)) ?? []).map { "rules-history/" + $0 }
        var exposed: [(String, mode_t)] = []
        for name in names.sorted() {
            var info = stat()
            guard lstat((data as NSString).appendingPathComponent(name), &info) == 0,
                info.st_mode & S_IFMT == S_IFREG
            else { continue }
            let mode = info.st_mode & 0o777
            let open = isPrivate((name as NSString).lastPathComponent) ? mode & 0o077 : mode & 0o022
            if open != 0 { exposed.append((name, mode)) }
        }
        guard !exposed.isEmpty else {
            findings.append(
                DoctorFinding(
                    "permissions", .ok,
                    "keys and databases are readable by their owner only; no file is writable by others"
                ))
            return
        }
        for (name, mode) in exposed {
            let path = (data as NSString).appendingPathComponent(name)
            let what =
                isPrivate((name as NSString).lastPathComponent)
                ? (mode & 0o004 != 0 ? "readable by every user" : "open to the group")
                : "writable by other users"
            findings.append(
                DoctorFinding(
                    "permissions", .warn, "\(name) is mode \(String(mode, radix: 8)): \(what)",
                    fix: "chmod 600 \(path)"))
        }
    }

    /// Whether a server holds the directory (`kura.lock`), and which process.
    static func checkLock(_ data: String, into findings: inout [DoctorFinding]) {
        let path = (data as NSString).appendingPathComponent(DataDirectoryLock.fileName)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            findings.append(DoctorFinding("server", .ok, "no server has run on this directory yet (no kura.lock)"))
            return
        }
        defer { close(fd) }
        // A shared lock taken and dropped at once: it fails only while a server holds the exclusive one.
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            findings.append(DoctorFinding("server", .ok, "no server is running on this directory"))
            return
        }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        let pid =
            count > 0
            ? String(decoding: bytes[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : "?"
        findings.append(
            DoctorFinding("server", .ok, "a server (process \(pid)) is running on this directory; checked beside it"))
    }

    /// Free space on the data directory's file system: a failure under 64 MiB (writes start failing with
    /// `RESOURCE_EXHAUSTED`), a warning under 1 GiB or under twice the databases' size (a backup, a checkpoint
    /// or an index build needs room).
    static func checkDisk(_ data: String, into findings: inout [DoctorFinding]) {
        var info = statvfs()
        guard statvfs(data, &info) == 0 else {
            findings.append(
                DoctorFinding(
                    "disk", .warn, "cannot read the free space of \(data): \(String(cString: strerror(errno)))"))
            return
        }
        let free = Int64(info.f_bavail) * Int64(info.f_frsize)
        let total = Int64(info.f_blocks) * Int64(info.f_frsize)
        let databases = SQLiteInspection.databaseBytes(in: data)
        let text = "\(size(free)) free of \(size(total)); the databases take \(size(databases))"
        if free < 64 << 20 {
            findings.append(
                DoctorFinding("disk", .fail, text, fix: "free space on the file system of \(data), or move it"))
        } else if free < 1 << 30 || free < 2 * databases {
            findings.append(
                DoctorFinding(
                    "disk", .warn, text,
                    fix: "free space: a backup, a checkpoint or an index build needs room beside the databases"))
        } else {
            findings.append(DoctorFinding("disk", .ok, text))
        }
    }
}
