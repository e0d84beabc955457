import Foundation
import KuraCore
import KuraEngine
import KuraModel
import KuraRules
import KuraStore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One version of the security rules: the source as written and its compiled form (compiled once per load).
public struct LoadedRules: Sendable {
    /// The rules text.
    public let source: String
    /// The compiled rules.
    public let ruleSet: RuleSet
}

/// The security rules in force, kept in `<data>/kura.rules` — or, with several nodes on one database, in the
/// database by version, the file being how an operator publishes a new version (`SecurityRules+Shared.swift`).
///
/// The default rules are written there only into a new data directory; a file missing from one that already holds
/// data is a start-up error, never silently replaced by the defaults. A file that does not compile refuses to load with
/// `file:line:col: message`: at startup that stops the server; later (the file changed, or a replacement came
/// through the API) the previous rules stay in force. `reloadIfChanged()` is polled by the server; readers get the
/// current version with one lock, never waiting for a reload.
public final class SecurityRules: Sendable {
    /// The file name in the data directory.
    public static let fileName = "kura.rules"

    /// `<data>/kura.rules`.
    public let path: String
    let logger: Logger
    let state: Mutex<State>
    /// Serializes reloads and replacements (file I/O and compiling), so that readers of `state` never wait for it.
    let updates = Mutex(())
    /// The rules every node shares (PostgreSQL); `nil` when the file is the truth.
    let shared: (any SharedNodeState)?
    /// Told the version of every publication this node makes (the cluster link tells the other nodes).
    let publications = Mutex<[@Sendable (Int64) -> Void]>([])

    /// `State.version`, readable without the lock.
    private let publishedVersion = Atomic<UInt64>(0)

    struct State {
        var current: LoadedRules
        /// The file as last seen by a reload or written by a replacement.
        var signature: FileSignature?
        /// Counts the rules put in force.
        var version: UInt64 = 0
        /// The shared version in force (0: none, or not shared).
        var sharedVersion: Int64 = 0
        /// A shared version that did not compile here, reported once.
        var refusedSharedVersion: Int64 = 0
        /// Whether the last read of the shared version failed (reported once until it works again).
        var sharedReadFailing = false
        /// A version this node published while starting, before anyone could be told (`takeStartPublication`).
        var publishedAtStart: Int64?
    }

    /// Loads `<data>/kura.rules`. A missing file gets the default rules when `newDataDirectory` (nothing has been
    /// stored there yet), and is a `ConfigurationError` otherwise: a user who removed or lost the file did not mean
    /// the defaults. Throws a `ConfigurationError` whose message is `path:line:col: message` when the file does not
    /// compile.
    ///
    /// With `shared`, the rules in force are the database's newest version, and the file follows it (see
    /// `SecurityRules+Shared.swift` for what a start does with a file edited while the node was down).
    public init(
        dataDirectory: String, newDataDirectory: Bool, logger: Logger, shared: (any SharedNodeState)? = nil
    ) throws {
        let path = (dataDirectory as NSString).appendingPathComponent(Self.fileName)
        self.path = path
        self.logger = logger
        self.shared = shared
        if let shared {
            let (loaded, version, published) = try Self.startShared(
                path: path, newDataDirectory: newDataDirectory, shared: shared, logger: logger)
            state = Mutex(
                State(
                    current: loaded, signature: FileSignature(path: path), sharedVersion: version,
                    publishedAtStart: published ? version : nil))
            return
        }
        if !FileManager.default.fileExists(atPath: path) {
            guard newDataDirectory else {
                throw ConfigurationError(
                    "\(path) is missing, and \(dataDirectory) already holds data, so Kura will not put the default "
                        + "rules in place of yours: restore the file (the defaults are in docs/examples/default.rules)")
            }
            try Self.writeAtomically(RuleSet.defaultSource, to: path)
            logger.info("wrote the default security rules to \(path)")
        }
        let signature = FileSignature(path: path)
        let source = try Self.read(path)
        do {
            let ruleSet = try RuleSet.compile(source: source, fileName: path)
            state = Mutex(State(current: LoadedRules(source: source, ruleSet: ruleSet), signature: signature))
        } catch {
            throw ConfigurationError(error.description)
        }
    }

    /// The rules in force now.
    public var current: LoadedRules { state.withLock { $0.current } }

    /// The rules in force now, with their version.
    public var currentVersioned: (rules: LoadedRules, version: UInt64) {
        state.withLock { ($0.current, $0.version) }
    }

    /// Changes whenever other rules are put in force; lock-free, for per-thread copies of the rules to compare.
    public var version: UInt64 { publishedVersion.load(ordering: .acquiring) }

    /// Puts `loaded` in force (with the lock held).
    func install(_ loaded: LoadedRules, in state: inout State) {
        state.current = loaded
        state.version += 1
        publishedVersion.store(state.version, ordering: .releasing)
    }

    /// Reloads the file if its inode, size or modification time changed since it was last seen. A file that does
    /// not compile (or cannot be read) is logged once and the rules in force stay.
    public func reloadIfChanged() {
        updates.withLock { _ in
            let signature = FileSignature(path: path)
            let changed = state.withLock { state in
                guard state.signature != signature else { return false }
                // Remembered before loading, so that a broken file is reported once, not at every poll.
                state.signature = signature
                return true
            }
            guard changed else { return }
            guard signature != nil else {
                return logger.error("\(path) is missing; the security rules in force stay until it is back")
            }
            do {
                let source = try Self.read(path)
                let ruleSet = try RuleSet.compile(source: source, fileName: path)
                if shared != nil {
                    return publishEditedFile(LoadedRules(source: source, ruleSet: ruleSet), signature: signature)
                }
                state.withLock { install(LoadedRules(source: source, ruleSet: ruleSet), in: &$0) }
                logger.info("reloaded the security rules from \(path)")
            } catch {
                logger.error("\(error); the security rules in force stay")
            }
        }
    }

    /// Compiles `source`, writes it to the file atomically and puts it in force. A source that does not compile is
    /// 400 `INVALID_RULES` with `kura.rules:line:col: message`, and the rules in force stay.
    @discardableResult
    public func replace(source: String) throws -> LoadedRules {
        let ruleSet: RuleSet
        do {
            ruleSet = try RuleSet.compile(source: source, fileName: Self.fileName)
        } catch {
            throw APIError.invalidRules(error.description)
        }
        let loaded = LoadedRules(source: source, ruleSet: ruleSet)
        if shared != nil { return try publish(loaded) }
        try updates.withLock { _ in
            try Self.writeAtomically(source, to: path)
            let signature = FileSignature(path: path)
            state.withLock { state in
                install(loaded, in: &state)
                state.signature = signature
            }
        }
        logger.info("security rules replaced through the API and written to \(path)")
        return loaded
    }

    static func read(_ path: String) throws -> String {
        do { return try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw ConfigurationError("cannot read \(path) as UTF-8 text: \(error.localizedDescription)")
        }
    }

    /// Writes a temporary file beside `path`, fsyncs it, renames it over `path` and fsyncs the directory, so the
    /// file is always either the old rules or the new ones, also after a crash.
    static func writeAtomically(_ text: String, to path: String) throws {
        let temporary = path + ".tmp-" + SecureRandom.hex(6)
        func failure(_ what: String) -> ConfigurationError {
            ConfigurationError("cannot write \(path): \(what) failed: \(String(cString: strerror(errno)))")
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("open") }
        var closed = false
        defer { if !closed { close(fd) } }
        if let error = writeAll(fd, Array(text.utf8)) {
            unlink(temporary)
            errno = error
            throw failure("write")
        }
        guard fsync(fd) == 0 else {
            unlink(temporary)
            throw failure("fsync")
        }
        close(fd)
        closed = true
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw failure("rename")
        }
        let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }
}

/// What identifies one version of a file without reading it: device, inode, size, and modification and change
/// times to the nanosecond. A rename over the file changes the inode; an edit in place changes the times.
struct FileSignature: Equatable {
    private let values: [Int64]

    /// The file's signature, or `nil` when it cannot be stat'ed (missing).
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        values = [
            Int64(truncatingIfNeeded: info.st_dev), Int64(truncatingIfNeeded: info.st_ino),
            Int64(truncatingIfNeeded: info.st_size), Int64(truncatingIfNeeded: info.st_mtim.tv_sec),
            Int64(truncatingIfNeeded: info.st_mtim.tv_nsec), Int64(truncatingIfNeeded: info.st_ctim.tv_sec),
            Int64(truncatingIfNeeded: info.st_ctim.tv_nsec),
        ]
    }
}
