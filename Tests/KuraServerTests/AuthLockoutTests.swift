import Foundation
import KuraCore
import KuraModel
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// Sign-in throttling counts failures, and a stranger's failures cannot lock the owner out: a correct password
/// from an address that has not been failing goes through even while the account's failure bucket is empty; the
/// guessing addresses stay throttled. Clients are told apart by their loopback source address (127.0.0.x).
@Suite struct AuthLockoutTests {
    private func signIn(_ server: TestKura, from address: String, _ email: String, _ password: String) throws
        -> HTTPResponse
    {
        try APIClient(port: server.port, adminKey: server.adminKey, source: address).request(
            "POST", "/api/auth/signin", json: ["email": email, "password": password], auth: .none)
    }

    @Test("five wrong passwords from strangers do not stop the owner's correct one")
    func strangerCannotLockOut() throws {
        try withAuthKura(configure: { $0.auth.rateLimits.enabled = true }) { server in
            try server.signUp("ann@example.com")
            for i in 0..<5 {
                let guess = try signIn(server, from: "127.0.0.\(10 + i % 2)", "ann@example.com", "guess-\(i)")
                expectError(guess, 400, .invalidLoginCredentials)
            }
            // The guessers are throttled on this account…
            expectError(
                try signIn(server, from: "127.0.0.10", "ann@example.com", "guess-5"), 429, .tooManyAttemptsTryLater
            )
            expectError(
                try signIn(server, from: "127.0.0.11", "ann@example.com", "secret-pw"), 429,
                .tooManyAttemptsTryLater)
            // …the owner, from an address with no failures, is not.
            #expect(try signIn(server, from: "127.0.0.1", "ann@example.com", "secret-pw").status == 200)
            #expect(try signIn(server, from: "127.0.0.1", "ann@example.com", "secret-pw").status == 200)
        }
    }

    @Test("a wrong password tried on a locked account locks that address out of it")
    func guessOnLockedAccount() throws {
        try withAuthKura(configure: { $0.auth.rateLimits.enabled = true }) { server in
            try server.signUp("ann@example.com")
            for i in 0..<5 { _ = try signIn(server, from: "127.0.0.10", "ann@example.com", "guess-\(i)") }
            // A fresh address gets one try; a wrong one marks it as failing.
            expectError(
                try signIn(server, from: "127.0.0.20", "ann@example.com", "guess-x"), 400, .invalidLoginCredentials)
            expectError(
                try signIn(server, from: "127.0.0.20", "ann@example.com", "secret-pw"), 429,
                .tooManyAttemptsTryLater)
            #expect(try signIn(server, from: "127.0.0.21", "ann@example.com", "secret-pw").status == 200)
        }
    }

    @Test("successful sign-ins are not counted")
    func successesAreFree() throws {
        try withAuthKura(configure: { $0.auth.rateLimits.enabled = true }) { server in
            try server.signUp("ann@example.com")
            for _ in 0..<25 {
                #expect(try signIn(server, from: "127.0.0.1", "ann@example.com", "secret-pw").status == 200)
            }
        }
    }
}
