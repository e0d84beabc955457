import Foundation
import Testing

@testable import KuraClient

/// The session file: mode 0600, rewritten atomically, removed on sign-out.
@Suite struct SessionStorageTests {
    func session(_ token: String) throws -> StoredSession {
        StoredSession(
            profile: try UserProfile(json: ["uid": "u1", "email": "a@example.com", "emailVerified": false]),
            idToken: token, refreshToken: "r-" + token, expiresAt: Date(timeIntervalSince1970: 2_000_000_000),
            lifetime: 3600)
    }

    @Test func fileStorageRewritesAndRemoves() throws {
        let file = temporaryFile("dir/session.json")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let storage = FileSessionStorage(url: file)
        #expect(storage.load() == nil)
        try storage.save(try session("one"))
        #expect(storage.load() == (try session("one")))
        try storage.save(try session("two"))
        #expect(storage.load() == (try session("two")))
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // No temporary files are left behind.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path) == [
                "session.json"
            ])
        try storage.save(nil)
        #expect(storage.load() == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }
}
