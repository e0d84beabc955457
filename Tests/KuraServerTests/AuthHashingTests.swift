import Foundation
import KuraCore
import KuraModel
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

@testable import KuraAuth

/// Password hashing (argon2id, ~100 ms and 64 MiB each with the default settings) must run on the worker pool:
/// if it ran on the event loop, every other request on that loop would wait behind it.
///
/// Proven by structure, not by a latency threshold: while a sign-in is held inside its password verification, a
/// request on the same (only) event loop is still answered.
@Suite struct AuthHashingTests {
    @Test("a sign-in in the middle of its argon2id verification does not hold up its event loop")
    func hashingStaysOffTheLoop() throws {
        try withTestKura(configure: {
            $0.auth.rateLimits.enabled = false
            $0.http.eventLoops = 1
        }) { kura in
            try kura.signUp("ann@example.com")
            let log = kura.kura.auth.hasher.verifications
            let port = kura.port
            let before = log.count
            log.hold()
            let signInStatus = Shared(0)
            let signIn = Thread {
                let body = JSON.encode(["email": "ann@example.com", "password": "secret-pw"])
                let response = try? HTTPConnection(port: port, timeout: .seconds(60)).send(
                    "POST", "/api/auth/signin", headers: [("Content-Type", "application/json")], body: body)
                signInStatus.withLock { $0 = response?.status ?? -1 }
            }
            signIn.start()
            defer { log.release() }
            // Wait until the sign-in is inside the verification (bounded, in case it never gets there).
            for _ in 0..<3000 where log.count == before { usleep(1000) }
            try #require(log.count == before + 1, "the sign-in never reached its password verification")
            // The loop is free: health answers while the verification is held.
            let health = try HTTPConnection(port: port, timeout: .seconds(10)).send("GET", "/api/health")
            #expect(health.status == 200)
            #expect(signInStatus.current == 0, "the sign-in must still be held")
            log.release()
            for _ in 0..<10_000 where signInStatus.current == 0 { usleep(1000) }
            #expect(signInStatus.current == 200)
        }
    }
}
