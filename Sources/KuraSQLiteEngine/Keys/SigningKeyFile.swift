import Foundation
import KuraAuth
import KuraCore
import KuraModel

#if canImport(Glibc)
    import Glibc
#endif

/// The SQLite engine's `SigningKeyStore`: `<directory>/auth-signing-keys.json` (mode 0600), the file Kura has always
/// kept its keys in, so existing data directories keep their keys and `kura admin rotate-keys` works as before.
/// The keys stay out of `accounts.db` on purpose: the SQLite engine serves one node, and a file an operator can
/// see, back up and restrict apart from the account data is simpler than a migration. Writes go to a temporary file
/// that is synced and renamed over the old one, so a reader sees the old list or the new one; writers take an
/// exclusive `flock` on the directory, so two processes creating or rotating at once both land.
public final class SigningKeyFile: SigningKeyStore {
    /// The key file's name in the data directory.
    public static let fileName = "auth-signing-keys.json"

    /// `<directory>/auth-signing-keys.json`.
    public let path: String
    private let directory: String

    /// The key file in `directory`; nothing is read or created until the first call.
    public init(directory: String) {
        self.directory = directory
        path = (directory as NSString).appendingPathComponent(Self.fileName)
    }

    public func loadOrCreate(initial: StoredSigningKey) throws -> [StoredSigningKey] {
        if let keys = try read() {
            // Tighten permissions that were loosened by hand.
            chmod(path, 0o600)
            return keys
        }
        return try withDirectoryLock {
            if let keys = try read() { return keys }
            try save([initial])
            return [initial]
        }
    }

    public func load() throws -> [StoredSigningKey] { try read() ?? [] }

    public func rotate(to key: StoredSigningKey, retaining: Int) throws -> [StoredSigningKey] {
        try withDirectoryLock {
            let keys = Array(([key] + (try read() ?? [])).prefix(1 + max(0, retaining)))
            try save(keys)
            return keys
        }
    }

    /// The stored keys; `nil` when there is no file. Throws when the file holds no usable key.
    private func read() throws -> [StoredSigningKey]? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let json = try JSONValue.parse(Array(data))
        let keys = json.objectValue?["keys"]?.arrayValue?.compactMap { entry -> StoredSigningKey? in
            guard let object = entry.objectValue,
                let seed = object["seed"]?.stringValue.flatMap { Base64.decode($0, .urlSafe) },
                seed.count == 32, case .int(let created)? = object["createTime"]
            else { return nil }
            return StoredSigningKey(seed: seed, createTime: created)
        }
        guard let keys, !keys.isEmpty else { throw APIError.unavailable("\(path) holds no usable signing key") }
        return keys
    }

    /// Writes atomically: a 0600 temporary file, fsync, rename. Call with the directory lock held.
    private func save(_ keys: [StoredSigningKey]) throws {
        let json: JSONValue = [
            "keys": .array(
                keys.map { ["seed": .string(Base64.encode($0.seed, .urlSafe)), "createTime": .int($0.createTime)] })
        ]
        let bytes = json.jsonBytes + [0x0A]
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw APIError.unavailable("cannot write \(temporary): errno \(errno)") }
        fchmod(fd, 0o600)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == bytes.count, synced == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw APIError.unavailable("cannot write \(path): errno \(errno)")
        }
    }

    /// Runs `body` holding an exclusive `flock` on the directory (not on the key file, which `write` replaces);
    /// the kernel drops it if the process dies.
    private func withDirectoryLock<T>(_ body: () throws -> T) throws -> T {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw APIError.unavailable("cannot open \(directory): errno \(errno)") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw APIError.unavailable("cannot lock \(directory): errno \(errno)") }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}
