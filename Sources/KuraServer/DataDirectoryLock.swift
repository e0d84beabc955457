import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One process owns a data directory: an exclusive `flock` on `<data>/kura.lock`, held for the life of the server
/// and released by the kernel when the process ends, however it ends. The file holds the owner's PID, so a second
/// server can say who has the directory. The file is left in place on release (unlinking a lock file races with
/// the next process opening it).
///
/// Two servers on one directory would each keep their own caches, listeners, rate limits and revocations of the
/// same data, and answer stale versions; `kura serve` refuses instead. The one-shot commands (`kura backup`,
/// `kura admin create-user`, `kura admin rotate-keys`) take no lock: they go through SQLite's own locking and touch
/// nothing a running server keeps in memory (docs/architecture.md).
public final class DataDirectoryLock: Sendable {
    /// The lock file's name in the data directory.
    public static let fileName = "kura.lock"

    /// `<data>/kura.lock`.
    public let path: String
    /// The open lock file; -1 once released.
    private let descriptor: Mutex<Int32>

    /// Takes the lock, or throws `ConfigurationError("data directory … is in use by process N")` when another
    /// process (or another server in this process) holds it.
    public init(dataDirectory: String) throws {
        let path = (dataDirectory as NSString).appendingPathComponent(Self.fileName)
        self.path = path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw ConfigurationError("cannot open the lock file \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            let owner = Self.owner(fd)
            close(fd)
            guard reason == EWOULDBLOCK else {
                throw ConfigurationError("cannot lock \(path): \(String(cString: strerror(reason)))")
            }
            throw ConfigurationError(
                "data directory \(dataDirectory) is in use by "
                    + (owner.map { "process \($0)" } ?? "another process")
                    + "; stop it first, or give this server another --data directory")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        descriptor = Mutex(fd)
    }

    /// Gives the directory up (idempotent); the server calls it once it has stopped.
    public func release() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            close(fd)  // closing the last descriptor of the open file drops the flock
            fd = -1
        }
    }

    deinit { release() }

    /// The PID written by the holder, if it is there yet.
    private static func owner(_ fd: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: bytes[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
