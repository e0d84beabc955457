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
}
