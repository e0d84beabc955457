import Foundation
internal import KuraModel

#if canImport(Security)
    import Security
#endif

/// Where a signed-in session (tokens and the user's profile) is kept between launches.
public enum SessionPersistence: Sendable {
    /// The Keychain where there is one; elsewhere a 0600 file under `~/.config/kura/`, one per server.
    case automatic
    /// A JSON file readable by its owner only (mode 0600), rewritten atomically.
    case file(URL)
    /// The Keychain (Apple platforms), as a generic password under `service`, one item per server.
    case keychain(service: String)
    /// Nothing is kept: signing in lasts as long as the `Kura` instance.
    case memory

    func storage(for server: URL) -> any SessionStorage {
        let account = server.absoluteString
        switch self {
        case .automatic:
            #if canImport(Security)
                return KeychainSessionStorage(service: "kura", account: account)
            #else
                let name = account.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? String($0) : "_" }
                    .joined()
                let directory = FileManager.default.homeDirectoryForCurrentUser
                    .appendingPathComponent(".config/kura", isDirectory: true)
                return FileSessionStorage(url: directory.appendingPathComponent(name + ".session"))
            #endif
        case .file(let url): return FileSessionStorage(url: url)
        case .keychain(let service):
            #if canImport(Security)
                return KeychainSessionStorage(service: service, account: account)
            #else
                return MemorySessionStorage()
            #endif
        case .memory: return MemorySessionStorage()
        }
    }
}

/// A signed-in session as it is persisted.
struct StoredSession: Codable, Sendable, Equatable {
    var profile: UserProfile
    var idToken: String
    var refreshToken: String
    /// When the ID token stops working (the server's `expiresIn` counted from when the answer arrived).
    var expiresAt: Date
    /// The ID token lifetime the server gave (`expiresIn`), in seconds.
    var lifetime: TimeInterval

    /// Refresh this long before `expiresAt`: a minute, or a fifth of a short lifetime.
    var refreshMargin: TimeInterval { min(60, lifetime / 5) }

    /// Whether the ID token is too close to expiry to use.
    var needsRefresh: Bool { expiresAt.timeIntervalSinceNow <= refreshMargin }

    /// Whether less than half of the ID token's lifetime is left.
    var isPastHalfLife: Bool { expiresAt.timeIntervalSinceNow <= lifetime / 2 }
}

/// The account fields the SDK keeps (`GET /api/auth/me`'s `user`).
struct UserProfile: Codable, Sendable, Equatable {
    var uid: String
    var email: String?
    var emailVerified: Bool
    var displayName: String?

    init(json: KuraValue?) throws {
        guard let uid = json?["uid"]?.stringValue else { throw KuraError.invalidResponse("no user in the answer") }
        self.uid = uid
        email = json?["email"]?.stringValue
        emailVerified = json?["emailVerified"]?.boolValue ?? false
        displayName = json?["displayName"]?.stringValue
    }
}

/// Keeps one session; `nil` means signed out.
protocol SessionStorage: Sendable {
    func load() -> StoredSession?
    func save(_ session: StoredSession?) throws
}

final class MemorySessionStorage: SessionStorage {
    private let session = Locked<StoredSession?>(nil)
    func load() -> StoredSession? { session.current }
    func save(_ session: StoredSession?) throws { self.session.withLock { $0 = session } }
}

/// The session as JSON in a file only its owner can read. Writes go to a 0600 temporary file that is then renamed
/// over the old one, so a crash leaves either the old session or the new one, never half of one.
final class FileSessionStorage: SessionStorage {
    let url: URL

    init(url: URL) { self.url = url }

    func load() -> StoredSession? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(StoredSession.self, from: data)
    }

    func save(_ session: StoredSession?) throws {
        let files = FileManager.default
        guard let session else {
            if files.fileExists(atPath: url.path) { try files.removeItem(at: url) }
            return
        }
        let directory = url.deletingLastPathComponent()
        try files.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString)")
        // Created empty with mode 0600 before any secret is written into it.
        guard files.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw KuraError(.internal, "cannot create \(temporary.path)")
        }
        do {
            try files.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary.path)
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            try handle.write(contentsOf: try JSONEncoder().encode(session))
            try handle.synchronize()
            // rename(2) (ISO C, everywhere): atomic replacement. FileManager.replaceItemAt on Linux deletes the
            // destination and then fails.
            guard rename(temporary.path, url.path) == 0 else {
                throw KuraError(.internal, "cannot replace \(url.path) (errno \(errno))")
            }
        } catch {
            try? files.removeItem(at: temporary)
            throw error
        }
    }
}

#if canImport(Security)
    /// The session as a generic-password Keychain item (`service`, `account` = the server URL), readable only
    /// while the device is unlocked and never synced.
    final class KeychainSessionStorage: SessionStorage {
        let service: String
        let account: String

        init(service: String, account: String) {
            self.service = service
            self.account = account
        }

        private var query: [String: Any] {
            [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccount as String: account,
            ]
        }

        func load() -> StoredSession? {
            var search = query
            search[kSecReturnData as String] = true
            search[kSecMatchLimit as String] = kSecMatchLimitOne
            var item: CFTypeRef?
            guard SecItemCopyMatching(search as CFDictionary, &item) == errSecSuccess, let data = item as? Data else {
                return nil
            }
            return try? JSONDecoder().decode(StoredSession.self, from: data)
        }

        func save(_ session: StoredSession?) throws {
            guard let session else {
                let status = SecItemDelete(query as CFDictionary)
                guard status == errSecSuccess || status == errSecItemNotFound else {
                    throw KuraError(.internal, "Keychain delete failed (\(status))")
                }
                return
            }
            let data = try JSONEncoder().encode(session)
            let attributes: [String: Any] = [
                kSecValueData as String: data,
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            ]
            var status = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
            if status == errSecItemNotFound {
                status = SecItemAdd(query.merging(attributes) { $1 } as CFDictionary, nil)
            }
            guard status == errSecSuccess else { throw KuraError(.internal, "Keychain write failed (\(status))") }
        }
    }
#endif
