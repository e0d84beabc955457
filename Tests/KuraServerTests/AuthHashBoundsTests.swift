import Foundation
import KuraCore
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

@testable import KuraAuth

#if canImport(Glibc)
    import Glibc
#endif

/// A stored argon2id hash costs what its own parameters say. One outside `auth.argon2Max*` (put there by an import
/// from an older version, or by hand) is never verified: sign-in answers as for a wrong password, after the same
/// work, and the log tells the operator which account and why.
@Suite struct AuthHashBoundsTests {
    struct StoredHash: Sendable, CustomTestStringConvertible {
        var name: String
        /// Made for the password `secret-pw` (or not a real hash at all).
        var hash: @Sendable () throws -> String
        var problem: String
        var testDescription: String { name }
    }

    static let storedHashes: [StoredHash] = [
        // A real hash of the right password, just past the bound: verifying it would sign in.
        StoredHash(
            name: "t=11, the right password",
            hash: {
                var generous = Argon2Bounds()
                generous.maxIterations = 100
                return try PasswordHasher(opsLimit: 11, memLimit: 8192, bounds: generous).hash("secret-pw")
            }, problem: "has t=11, outside 1-10 (auth.argon2MaxIterations)"),
        // Verifying this one would hold a worker at full CPU practically forever.
        StoredHash(
            name: "t=4294967295",
            hash: {
                "$argon2id$v=19$m=65536,t=4294967295,p=1$c2FsdHNhbHRzYWx0c2FsdA$" + String(repeating: "A", count: 43)
            },
            problem: "has t=4294967295, outside 1-10"),
        StoredHash(
            name: "m=4 GiB",
            hash: { "$argon2id$v=19$m=4194304,t=1,p=1$c2FsdHNhbHRzYWx0c2FsdA$" + String(repeating: "A", count: 43) },
            problem: "has m=4194304, outside 8-1048576 KiB (auth.argon2MaxMemoryKiB)"),
    ]

    @Test(
        "a stored hash outside the bounds is never verified; sign-in answers INVALID_LOGIN_CREDENTIALS",
        arguments: storedHashes)
    func storedHashOutsideBounds(_ stored: StoredHash) throws {
        let logFile = TemporaryDirectory.uniquePath("hash-bounds") + ".log"
        let fd = open(logFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer {
            close(fd)
            unlink(logFile)
        }
        let server = try TestKura(
            logger: Logger(level: .warn, fd: fd),
            configure: {
                $0.auth = .lowCostForTesting
                $0.auth.rateLimits.enabled = false
            })
        defer { server.shutdown() }
        let ann = try server.signUp("ann@example.com")
        let auth = server.kura.auth
        var account = try #require(try auth.store.account(emailKey: EmailAddress("ann@example.com").key))
        account.passwordHash = try stored.hash()
        try auth.store.updateAccount(account)

        let log = auth.hasher.verifications
        let before = log.count
        let signIn = try server.request(
            "POST", "/api/auth/signin", json: ["email": "ann@example.com", "password": "secret-pw"], auth: .none)
        #expect(signIn.status == 400)
        #expect(signIn.errorCode == "INVALID_LOGIN_CREDENTIALS", "\(signIn)")
        // One verification ran, and it was the dummy's (the server's own parameters), not the stored hash's.
        #expect(log.count == before + 1)
        #expect(log.lastParameters == String(PasswordHasher.parameters(of: auth.hasher.dummyHash)))
        let written = try String(contentsOfFile: logFile, encoding: .utf8)
        #expect(
            written.contains(
                "sign-in to account \(ann.uid) refused without verifying: its password hash \(stored.problem)"),
            "\(written)")
        // The server still answers, and stops (nothing holds a worker).
        #expect(try server.request("GET", "/api/health", auth: .none).status == 200)
    }

    @Test("the server refuses to start when its own hashing parameters are outside the bounds")
    func ownParametersOutsideBounds() throws {
        #expect {
            try TestKura(configure: {
                $0.auth = .lowCostForTesting
                $0.auth.passwordOpsLimit = 11
            })
        } throws: { error in
            "\(error)".contains("auth.passwordOpsLimit and auth.passwordMemLimit make hashes the server would refuse")
                && "\(error)".contains("has t=11, outside 1-10 (auth.argon2MaxIterations)")
        }
        // Raised bounds let it start.
        let server = try TestKura(configure: {
            $0.auth = .lowCostForTesting
            $0.auth.passwordOpsLimit = 11
            try $0.set("auth.argon2MaxIterations", "11")
        })
        server.shutdown()
    }

    @Test("hashes from other systems pass the default bounds; malformed and out-of-range ones are named")
    func bounds() {
        let bounds = Argon2Bounds()
        let salt = "c2FsdHNhbHRzYWx0c2FsdA"  // 16 bytes
        let hash = String(repeating: "A", count: 43)  // 32 bytes
        // libsodium INTERACTIVE and SENSITIVE, RFC 9106's second choice, Django's and Keycloak's defaults.
        for costs in ["m=65536,t=2,p=1", "m=1048576,t=4,p=1", "m=65536,t=3,p=4", "m=102400,t=2,p=8", "m=7168,t=5,p=1"] {
            #expect(bounds.problem(with: "$argon2id$v=19$\(costs)$\(salt)$\(hash)") == nil, "\(costs)")
        }
        let refused: [(String, String)] = [
            ("$argon2id$v=19$m=65536,t=2,p=17$\(salt)$\(hash)", "has p=17, outside 1-16 (auth.argon2MaxParallelism)"),
            ("$argon2id$v=19$m=65536,t=0,p=1$\(salt)$\(hash)", "has t=0, outside 1-10"),
            ("$argon2id$v=19$m=31,t=2,p=4$\(salt)$\(hash)", "has m=31, outside 32-1048576 KiB"),
            ("$argon2id$v=16$m=65536,t=2,p=1$\(salt)$\(hash)", "has version v=16; only v=19 is verified"),
            ("$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$\(hash)", "has a 4-byte salt, outside 8-64"),
            ("$argon2id$v=19$m=65536,t=2,p=1$\(salt)$AAAAAAAA", "has a 6-byte hash, outside 16-64"),
            ("$argon2id$v=19$m=65536,t=99999999999,p=1$\(salt)$\(hash)", "malformed parameters"),
            ("$argon2id$v=19$t=2,m=65536,p=1$\(salt)$\(hash)", "malformed parameters"),
            ("$argon2id$v=19$m=65536,t=2,p=1$\(salt)$A-B_", "not unpadded base64"),
            ("$argon2i$v=19$m=65536,t=2,p=1$\(salt)$\(hash)", "is not an argon2id hash"),
        ]
        for (encoded, problem) in refused {
            let found = bounds.problem(with: encoded)
            #expect(found?.contains(problem) == true, "\(encoded): \(found ?? "accepted")")
        }
    }
}
