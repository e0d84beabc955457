#if canImport(Glibc)
    import Glibc
#endif

/// The data directory as hosting sees it: a directory it never serves from and never opens a file in, however it
/// meets the hosting root (the root's parent, a symlink into it, a directory created or moved into the root after
/// start-up). Where it is gets looked up again for every file hosting opens, so nothing learnt at start-up goes
/// stale. Blocking (realpath, stat): worker pool only.
struct ProtectedDirectory: Sendable {
    /// The configured path, made absolute at start-up (the server's files stay where they were opened, whatever
    /// later happens to the working directory).
    let path: String
    /// Its real path and identity at start-up; nil when it did not exist then. A directory moved elsewhere keeps
    /// its identity, so the server's files are recognised wherever they go.
    private let startRealPath: String?
    private let startIdentity: DirectoryIdentity?

    init(_ configured: String) {
        path = Self.absolute(configured)
        startRealPath = PathResolution.realPath(path)
        startIdentity = DirectoryIdentity(path: path)
    }

    /// Where the directory is now (and was at start-up): what `contains` and `isProtected` compare with.
    func snapshot() -> Snapshot {
        var realPaths: [String] = []
        var identities: [DirectoryIdentity] = []
        if let startRealPath { realPaths.append(startRealPath) }
        if let now = PathResolution.realPath(path), now != startRealPath { realPaths.append(now) }
        if let startIdentity { identities.append(startIdentity) }
        if let now = DirectoryIdentity(path: path), now != startIdentity { identities.append(now) }
        return Snapshot(realPaths: realPaths, identities: identities)
    }

    /// The protected directory at one moment.
    struct Snapshot {
        let realPaths: [String]
        let identities: [DirectoryIdentity]

        /// Whether the real path `real` is the directory or lies below it.
        func contains(realPath real: String) -> Bool {
            realPaths.contains { PathResolution.isSameOrBelow(real, $0) }
        }

        /// Whether the directory with `status` is the protected directory itself.
        func isProtected(_ status: stat) -> Bool {
            let identity = DirectoryIdentity(status)
            return identities.contains(identity)
        }

        /// Whether the regular file with `status` is a hard link to a file in the protected directory: only a file
        /// with more than one link on the same file system can be, and only then is the directory listed.
        func isLinkedInto(_ status: stat) -> Bool {
            guard status.st_nlink > 1 else { return false }
            for directory in realPaths {
                guard let dir = opendir(directory) else { continue }
                defer { closedir(dir) }
                while let entry = readdir(dir) {
                    var found = stat()
                    let name = withUnsafeBytes(of: entry.pointee.d_name) {
                        String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
                    }
                    guard name != "." && name != "..", lstat(directory + "/" + name, &found) == 0 else { continue }
                    if found.st_dev == status.st_dev && found.st_ino == status.st_ino { return true }
                }
            }
            return false
        }
    }

    private static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let cwd = getcwd(nil, 0) else { return path }
        defer { free(cwd) }
        let base = String(cString: cwd)
        return (base == "/" ? "" : base) + "/" + path
    }
}

/// Device and inode: what tells one directory from another, whatever path reaches it.
struct DirectoryIdentity: Sendable, Equatable {
    let device: UInt64
    let inode: UInt64

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }

    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        self.init(status)
    }
}

/// Real paths, for comparing where two directories are.
enum PathResolution {
    /// `path` with every symlink resolved, or nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The real path `path` would have: its longest existing prefix resolved, the rest appended as written
    /// (`.` dropped, `..` taken lexically). For a directory that does not exist yet.
    static func prospectiveRealPath(_ path: String) -> String {
        var existing = path.hasPrefix("/") ? "" : "."
        var components = path.split(separator: "/").map(String.init)
        var missing: [String] = []
        while !components.isEmpty {
            let candidate = (path.hasPrefix("/") ? "/" : "") + components.joined(separator: "/")
            if let real = realPath(candidate) {
                existing = real
                break
            }
            missing.insert(components.removeLast(), at: 0)
        }
        if components.isEmpty { existing = realPath(path.hasPrefix("/") ? "/" : ".") ?? "/" }
        var parts = existing.split(separator: "/").map(String.init)
        for part in missing {
            if part == "." || part.isEmpty { continue }
            if part == ".." {
                if !parts.isEmpty { parts.removeLast() }
            } else {
                parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// Whether `path` is `directory` or below it (both real paths).
    static func isSameOrBelow(_ path: String, _ directory: String) -> Bool {
        if directory == "/" { return true }
        return path == directory || path.hasPrefix(directory + "/")
    }
}
