#if canImport(Glibc)
    import Glibc
#endif

/// The root on disk, and the only code that touches it. Blocking: call from the worker pool.
///
/// Nothing inside the protected directory (the data directory) is ever served or even opened: a path whose real
/// path lies there is refused before any open, and `open` walks down from the root one directory at a time,
/// refusing symlinks and checking each directory's identity before looking inside it, so a path swapped between
/// the check and the open cannot lead there either. (Opening and closing a database file outside SQLite would
/// drop SQLite's POSIX locks: the server's own store would then break.)
struct HostingRoot: Sendable {
    /// The root's real path (symlinks resolved), without a trailing `/`.
    let path: String
    let protected: ProtectedDirectory?

    init(_ directory: String, protecting dataDirectory: String? = nil) throws(HostingError) {
        guard let real = PathResolution.realPath(directory) else {
            throw HostingError("hosting.root \(directory) does not exist or cannot be read")
        }
        guard Self.status(real).map({ $0.st_mode & S_IFMT == S_IFDIR }) == true else {
            throw HostingError("hosting.root \(directory) is not a directory")
        }
        if let dataDirectory { try Self.checkPlacement(root: directory, dataDirectory: dataDirectory) }
        path = real == "/" ? "" : real
        protected = dataDirectory.map(ProtectedDirectory.init)
    }

    /// Refuses a root that is the data directory or lies inside it: everything there would be served. (A data
    /// directory inside the root is fine: hosting never serves it.)
    static func checkPlacement(root: String, dataDirectory: String) throws(HostingError) {
        guard let rootReal = PathResolution.realPath(root) else { return }
        let dataReal = PathResolution.prospectiveRealPath(dataDirectory)
        guard PathResolution.isSameOrBelow(rootReal, dataReal) else { return }
        let place = rootReal == dataReal ? "is the data directory" : "is inside the data directory \(dataDirectory)"
        throw HostingError(
            "hosting.root \(root) \(place); Kura will not serve it, since that would hand its admin key, signing "
                + "keys and databases to anyone. Serve a directory outside the data directory (--public DIR), or "
                + "keep the data elsewhere (--data DIR); a data directory inside the served one is fine, it is "
                + "never served")
    }

    /// What is on disk at a request path.
    enum Found: Sendable {
        /// A regular file: its real path and identity.
        case file(path: String, identity: FileIdentity)
        /// A directory (the path lacked its trailing `/`).
        case directory
        /// Nothing servable: absent, unreadable, a special file, inside the data directory, or a symlink that
        /// leads out of the root or to a dotfile.
        case missing
    }

    /// Resolves `hosted` to a file, following symlinks only as far as they stay inside the root and out of the
    /// data directory; a directory path resolves to its `index.html`.
    func find(_ hosted: HostedPath) -> Found {
        let snapshot = protected?.snapshot()
        guard let real = inside(path + "/" + hosted.relative, snapshot), let stat = Self.status(real) else {
            return .missing
        }
        switch stat.st_mode & S_IFMT {
        case S_IFREG:
            return hosted.isDirectory && !hosted.segments.isEmpty ? .missing : .file(path: real, identity: .init(stat))
        case S_IFDIR:
            guard hosted.isDirectory else { return .directory }
            guard let index = inside(real + "/index.html", snapshot), let indexStat = Self.status(index),
                indexStat.st_mode & S_IFMT == S_IFREG
            else { return .missing }
            return .file(path: index, identity: .init(indexStat))
        default:
            return .missing
        }
    }

    /// The real path of `candidate` if it lies inside the root, outside the protected directory, and no part of
    /// it below the root is a dotfile.
    private func inside(_ candidate: String, _ snapshot: ProtectedDirectory.Snapshot?) -> String? {
        guard let real = PathResolution.realPath(candidate) else { return nil }
        if snapshot?.contains(realPath: real) == true { return nil }
        if real == path || (path.isEmpty && real == "/") { return real }
        guard real.hasPrefix(path + "/") else { return nil }
        let below = real.dropFirst(path.count + 1)
        guard !below.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else { return nil }
        return real
    }

    /// The identity of the file at `path` now, or nil if it is gone.
    func identity(ofFileAt path: String) -> FileIdentity? { Self.status(path).map(FileIdentity.init) }

    /// Opens the regular file at `real` (a real path from `find`) for reading, or nil. Walks from the root one
    /// directory at a time without following symlinks (a real path has none: one met now means the path changed
    /// since `find`), checks that no directory on the way is the protected one before looking inside it, and
    /// that the file is no hard link into it before opening it.
    func open(_ real: String) -> OpenFile? {
        guard real.hasPrefix(path + "/") else { return nil }
        let names = real.dropFirst(path.count + 1).split(separator: "/").map(String.init)
        guard let last = names.last else { return nil }
        let snapshot = protected?.snapshot()
        if snapshot?.contains(realPath: real) == true { return nil }
        var directory = Glibc.open(path.isEmpty ? "/" : path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return nil }
        defer { close(directory) }
        var status = stat()
        guard fstat(directory, &status) == 0, snapshot?.isProtected(status) != true else { return nil }
        for name in names.dropLast() {
            let next = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else { return nil }
            close(directory)
            directory = next
            guard fstat(directory, &status) == 0, snapshot?.isProtected(status) != true else { return nil }
        }
        var fileStatus = stat()
        guard fstatat(directory, last, &fileStatus, AT_SYMLINK_NOFOLLOW) == 0, fileStatus.st_mode & S_IFMT == S_IFREG,
            snapshot?.isLinkedInto(fileStatus) != true
        else { return nil }
        // O_NONBLOCK: a FIFO swapped in after the check must not hang the worker (it then fails the check below).
        let fd = openat(directory, last, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        var opened = stat()
        guard fstat(fd, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG, opened.st_dev == fileStatus.st_dev,
            opened.st_ino == fileStatus.st_ino
        else {
            close(fd)
            return nil
        }
        return OpenFile(fd: fd, identity: FileIdentity(opened))
    }

    /// Reads the whole file at `path` (a real path from `find`), checking that it is still `identity`'s size.
    func read(_ path: String, identity: FileIdentity) -> [UInt8]? {
        guard let file = open(path), file.identity.size == identity.size else { return nil }
        return file.read(at: 0, count: Int(identity.size))
    }

    private static func status(_ path: String) -> stat? {
        var result = stat()
        return stat(path, &result) == 0 ? result : nil
    }
}

/// A file opened for serving; closed when the last reference goes (a stream that never started included).
final class OpenFile: Sendable {
    let fd: Int32
    /// What the descriptor is, from `fstat` once opened.
    let identity: FileIdentity

    init(fd: Int32, identity: FileIdentity) {
        self.fd = fd
        self.identity = identity
    }

    deinit { close(fd) }

    /// `count` bytes from `offset`, or nil when the file ends before them (it shrank) or cannot be read.
    func read(at offset: Int64, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            done += n
        }
        return bytes
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
