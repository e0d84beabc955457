import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Facts about this process that `/metrics` reports, read from `/proc` (Linux); `nil` where it cannot be read.
enum ProcessStats {
    /// Resident memory in bytes (`/proc/self/statm`, second field, in pages).
    static func residentBytes() -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int64(fields[1]) else { return nil }
        return pages * Int64(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Open file descriptors (the entries of `/proc/self/fd`, less the one the listing itself opens).
    static func openDescriptors() -> Int? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return nil }
        return max(0, entries.count - 1)
    }

    /// The soft limit on open descriptors.
    static func maxDescriptors() -> Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return limit.rlim_cur == rlim_t.max ? nil : Int(limit.rlim_cur)
    }

    /// When the process started, in seconds since the epoch (close enough: when this type was first used, which
    /// the server does at start-up).
    static let startTime = Date().timeIntervalSince1970

    /// The bytes of the regular files in `directory` whose names contain `.db` (SQLite databases with their
    /// `-wal` and `-shm` files).
    static func databaseBytes(in directory: String) -> Int64 {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return 0 }
        var total: Int64 = 0
        for name in names where name.contains(".db") {
            var info = stat()
            if stat(directory + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
                total += Int64(info.st_size)
            }
        }
        return total
    }
}
