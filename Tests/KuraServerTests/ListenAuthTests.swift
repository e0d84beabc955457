import Foundation
import KuraCore
import KuraModel
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Credentials of listen streams: tokens in the header or the URL, revocation and expiry end the stream.
@Suite struct ListenAuthTests {
    @Test("signing out ends the stream with auth_revoked")
    func signOut() throws {
        try withRulesKura(configure: { $0.realtime.authCheckSeconds = 0.1 }) { server in
            let a = try server.signUp("a@example.com")
            try server.put("users/\(a.uid)/notes/n1", ["text": "x"])
            let stream = try server.listen("?doc=users/\(a.uid)/notes/n1", auth: a.bearer)
            _ = try stream.expect("connected")
            _ = try stream.expect("snapshot")
            #expect(try stream.drain(for: 0.4).isEmpty)  // still valid: no auth_revoked
            #expect(try server.request("POST", "/api/auth/signout", json: [:], token: a.idToken).status == 200)
            let revoked = try stream.expect("auth_revoked", timeout: 5)
            #expect(revoked.json["code"] as? String == "UNAUTHENTICATED")
            #expect(try stream.next(timeout: 3) == nil)
            #expect(stream.ended)
            #expect(waitUntil(timeout: 3) { server.kura.realtime.connectionCount == 0 })
        }
    }

    @Test("an ID token that expires ends the stream with auth_revoked TOKEN_EXPIRED")
    func expiry() throws {
        try withRulesKura(configure: { $0.auth.idTokenLifetime = 2 }) { server in
            let a = try server.signUp("a@example.com")
            let stream = try server.listen("?doc=users/\(a.uid)", auth: a.bearer)
            _ = try stream.expect("connected")
            _ = try stream.expect("snapshot")
            let started = Date()
            let revoked = try stream.expect("auth_revoked", timeout: 6)
            #expect(revoked.json["code"] as? String == "TOKEN_EXPIRED")
            #expect(Date().timeIntervalSince(started) < 4)
        }
    }

    @Test("a wall clock set back leaves heartbeats on time; set forward past `exp`, it expires the token")
    func wallClockSteps() throws {
        // The feed reads dates (a token's `exp`) from this clock and intervals from the monotonic one.
        let step = Shared(0.0)
        try withRulesKura(configure: {
            $0.realtime.heartbeatSeconds = 0.1
            $0.realtime.wallClock = { Double(WallClock.nowMicros()) / 1_000_000 + step.current }
        }) { server in
            let a = try server.signUp("a@example.com")
            let stream = try server.listen("?doc=users/\(a.uid)", auth: a.bearer)
            _ = try stream.expect("connected")
            _ = try stream.expect("snapshot")
            step.withLock { $0 = -3600 }
            // Heartbeats timed on the wall clock would pause for the hour the clock went back.
            let before = stream.comments
            let beating = try waitUntil(timeout: 10) {
                _ = try stream.drain(for: 0.1)
                return stream.comments >= before + 3
            }
            #expect(beating)
            #expect(!stream.ended)
            // Two hours on: the one-hour ID token's `exp` has passed, which is a date, so the stream ends.
            step.withLock { $0 = 7200 }
            let revoked = try stream.expect("auth_revoked", timeout: 10)
            #expect(revoked.json["code"] as? String == "TOKEN_EXPIRED")
        }
    }

    @Test("?token= authenticates an EventSource; a bad token is 401 before the stream opens")
    func tokenInURL() throws {
        try withRulesKura { server in
            let a = try server.signUp("a@example.com")
            let stream = try server.listen("?token=\(urlEncode(a.idToken))&doc=users/\(a.uid)", auth: .none)
            #expect(stream.status == 200)
            _ = try stream.expect("connected")
            _ = try stream.expect("snapshot")
            let bad = try server.listen("?token=nonsense", auth: .none)
            #expect(bad.status == 401)
            #expect(try server.listen(auth: .header("Bearer nonsense")).status == 401)
            // Anonymous listeners follow the rules as `request.auth == null`.
            let anonymous = try server.listen("?doc=users/\(a.uid)", auth: .none)
            _ = try anonymous.expect("connected")
            #expect(try anonymous.expect("error").json["code"] as? String == "PERMISSION_DENIED")
        }
    }

    @Test("the access log never prints a token given in the URL")
    func accessLogRedacts() throws {
        let logPath = TemporaryDirectory.uniquePath("listen-log")
        let fd = open(logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        defer {
            Glibc.close(fd)
            unlink(logPath)
        }
        let server = try TestKura(logger: Logger(level: .info, fd: fd)) { configuration in
            configuration.auth = .lowCostForTesting
            configuration.auth.rateLimits.enabled = false
        }
        let a = try server.signUp("a@example.com")
        let stream = try server.listen("?token=\(urlEncode(a.idToken))&doc=users/\(a.uid)", auth: .none)
        _ = try stream.expect("connected")
        stream.close()
        server.shutdown()
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(log.contains("GET /api/listen "))
        #expect(!log.contains(a.idToken))
        #expect(!log.contains("token="))
    }
}
