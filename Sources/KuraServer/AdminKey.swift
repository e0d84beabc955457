import Foundation
import KuraCore
import KuraEngine
import KuraModel
import KuraStore

/// The administrator's API key: 256 random bits, hex, kept at `<data>/admin.key` with mode 0600.
/// A request with `Authorization: Bearer <key>` acts as the administrator.
public struct AdminKey: Sendable {
    public let value: String
    public let path: String

    /// Reads the key, creating it on first start.
    public static func loadOrCreate(dataDirectory: String) throws -> (key: AdminKey, created: Bool) {
        let path = (dataDirectory as NSString).appendingPathComponent("admin.key")
        if let existing = try? String(contentsOfFile: path, encoding: .utf8) {
            let value = existing.trimmingCharacters(in: .whitespacesAndNewlines)
            guard value.utf8.count >= 32 else {
                throw ConfigurationError("\(path) holds no usable key; delete it to have a new one made")
            }
            return (AdminKey(value: value, path: path), false)
        }
        let value = SecureRandom.hex(32)
        let created = FileManager.default.createFile(
            atPath: path, contents: Data((value + "\n").utf8), attributes: [.posixPermissions: 0o600])
        guard created else { throw ConfigurationError("cannot write \(path)") }
        return (AdminKey(value: value, path: path), true)
    }

    /// With several nodes on one database (`shared`): the key every node accepts, stored in the database by the
    /// first node (its `<data>/admin.key` if it had one, else a new key); each node writes it to its own
    /// `<data>/admin.key` for its operator, replacing a different one there. `written` says whether the file was
    /// (re)written.
    public static func loadOrCreate(dataDirectory: String, shared: (any SharedNodeState)?) throws
        -> (key: AdminKey, written: Bool)
    {
        guard let shared else {
            let (key, created) = try loadOrCreate(dataDirectory: dataDirectory)
            return (key, created)
        }
        let path = (dataDirectory as NSString).appendingPathComponent("admin.key")
        let local = (try? String(contentsOfFile: path, encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let proposed = local.flatMap { $0.utf8.count >= 32 ? $0 : nil } ?? SecureRandom.hex(32)
        let value: String
        do { value = try shared.adminKey(proposing: proposed) } catch {
            throw ConfigurationError("cannot read the shared admin key from the database: \(error)")
        }
        guard local != value else { return (AdminKey(value: value, path: path), false) }
        try? FileManager.default.removeItem(atPath: path)
        let created = FileManager.default.createFile(
            atPath: path, contents: Data((value + "\n").utf8), attributes: [.posixPermissions: 0o600])
        guard created else { throw ConfigurationError("cannot write \(path)") }
        return (AdminKey(value: value, path: path), true)
    }

    /// Constant-time comparison with a presented bearer token.
    public func matches(_ token: String?) -> Bool {
        // Without copying: every user request with an ID token is compared here first.
        guard var token, token.utf8.count == value.utf8.count else { return false }
        var key = value
        // Over contiguous bytes: zipping the two UTF-8 views showed in the profile of every admin request.
        return token.withUTF8 { presented in
            key.withUTF8 { expected in
                var diff: UInt8 = 0
                for index in 0..<expected.count { diff |= presented[index] ^ expected[index] }
                return diff == 0
            }
        }
    }
}
