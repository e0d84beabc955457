#if canImport(Glibc)
    import Glibc
#endif

/// The hosting root on disk, and the only code that touches it. Blocking: call from the worker pool.
struct HostingRoot: Sendable {
    /// The root's real path (symlinks resolved), without a trailing `/`.
    let path: String

    init(_ directory: String) throws(HostingError) {
        guard let real = Self.realPath(directory) else {
            throw HostingError("hosting.root \(directory) does not exist or cannot be read")
        }
        guard Self.status(real).map({ $0.st_mode & S_IFMT == S_IFDIR }) == true else {
            throw HostingError("hosting.root \(directory) is not a directory")
        }
        path = real == "/" ? "" : real
    }

    /// What is on disk at a request path.
    enum Found: Sendable {
        /// A regular file: its real path and identity.
        case file(path: String, identity: FileIdentity)
        /// A directory (the path lacked its trailing `/`).
        case directory
        /// Nothing servable: absent, unreadable, a special file, or a symlink that leads out of the root or to
        /// a dotfile.
        case missing
    }

    /// Resolves `hosted` to a file, following symlinks only as far as they stay inside the root; a directory
    /// path resolves to its `index.html`.
    func find(_ hosted: HostedPath) -> Found {
        guard let real = inside(path + "/" + hosted.relative), let stat = Self.status(real) else { return .missing }
        switch stat.st_mode & S_IFMT {
        case S_IFREG:
            return hosted.isDirectory && !hosted.segments.isEmpty ? .missing : .file(path: real, identity: .init(stat))
        case S_IFDIR:
            guard hosted.isDirectory else { return .directory }
            guard let index = inside(real + "/index.html"), let indexStat = Self.status(index),
                indexStat.st_mode & S_IFMT == S_IFREG
            else { return .missing }
            return .file(path: index, identity: .init(indexStat))
        default:
            return .missing
        }
    }

    /// The real path of `candidate` if it lies inside the root and no part of it below the root is a dotfile.
    private func inside(_ candidate: String) -> String? {
        guard let real = Self.realPath(candidate) else { return nil }
        if real == path || (path.isEmpty && real == "/") { return real }
        guard real.hasPrefix(path + "/") else { return nil }
        let below = real.dropFirst(path.count + 1)
        guard !below.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else { return nil }
        return real
    }

    /// The identity of the file at `path` now, or nil if it is gone.
    func identity(ofFileAt path: String) -> FileIdentity? { Self.status(path).map(FileIdentity.init) }

    /// Reads the whole file at `path` (a real path from `find`), checking that it is still `identity`'s size.
    func read(_ path: String, identity: FileIdentity) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: Int(identity.size))
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress! + offset, $0.count - offset, off_t(offset))
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }  // shrank while being read: the next check reloads it
            offset += n
        }
        return bytes
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func status(_ path: String) -> stat? {
        var result = stat()
        return stat(path, &result) == 0 ? result : nil
    }
}

/// What tells one version of a file from another without reading it.
struct FileIdentity: Sendable, Equatable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modifiedNanos: Int64

    var modifiedSeconds: Int64 { modifiedNanos / 1_000_000_000 }
}

extension FileIdentity {
    init(_ stat: stat) {
        device = UInt64(stat.st_dev)
        inode = UInt64(stat.st_ino)
        size = Int64(stat.st_size)
        modifiedNanos = Int64(stat.st_mtim.tv_sec) * 1_000_000_000 + Int64(stat.st_mtim.tv_nsec)
    }
}

/// A hosting set-up that cannot work.
public struct HostingError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
