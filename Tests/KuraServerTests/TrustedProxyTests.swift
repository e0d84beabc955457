import Foundation
import KuraCore
import KuraHTTP
import KuraModel
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Per-address limits behind a reverse proxy (`http.trustedProxies`): the clients a trusted proxy forwards get a
/// bucket each, so one guesser does not lock everyone out; a peer that is not trusted is one client, whatever
/// forwarding headers it sends. The proxy here is this test, on 127.0.0.1.
@Suite struct TrustedProxyTests {
    /// A failed sign-in (an address with no account) from `client` through `connection` (one TCP peer).
    private func failedSignIn(_ connection: APIClient, forwarded: [(String, String)], _ i: Int) throws -> HTTPResponse {
        try connection.request(
            "POST", "/api/auth/signin", json: ["email": "nobody\(i)@example.com", "password": "wrong-pw"],
            headers: forwarded, auth: .none)
    }

    /// Fails sign-ins with `forwarded` until the 429 (at most 40); returns how many were let through.
    private func exhaust(_ connection: APIClient, forwarded: [(String, String)]) throws -> Int {
        for attempt in 0..<40 {
            if try failedSignIn(connection, forwarded: forwarded, attempt).status == 429 { return attempt }
        }
        return 40
    }

    private func configure(_ trusted: String) -> (inout KuraConfiguration) throws -> Void {
        { configuration in
            configuration.auth.rateLimits.enabled = true
            try configuration.set("http.trustedProxies", trusted)
        }
    }

    @Test("behind a trusted proxy, one client's failed sign-ins do not lock out another")
    func trustedProxySeparatesClients() throws {
        try withAuthKura(configure: configure("127.0.0.1/32")) { kura in
            try kura.signUp("ann@example.com")
            let proxy = try kura.client(source: "127.0.0.1")
            let guesser = [("X-Forwarded-For", "203.0.113.66, 198.51.100.7")]
            let allowed = try exhaust(proxy, forwarded: guesser)
            #expect((20...21).contains(allowed), "\(allowed)")
            // The guesser cannot get a fresh bucket by changing what it sends on the left of the proxy's hop.
            expectError(
                try failedSignIn(proxy, forwarded: [("X-Forwarded-For", "203.0.113.67, 198.51.100.7")], 99), 429,
                .tooManyAttemptsTryLater)
            // Another client through the same proxy signs in, and may fail on its own account.
            let other = [("X-Forwarded-For", "198.51.100.8")]
            let signIn = try proxy.request(
                "POST", "/api/auth/signin", json: ["email": "ann@example.com", "password": "secret-pw"],
                headers: other, auth: .none)
            #expect(signIn.status == 200)
            expectError(try failedSignIn(proxy, forwarded: other, 100), 400, .invalidLoginCredentials)
            // A request from the proxy that names no client is the proxy's own, a bucket apart.
            expectError(try failedSignIn(proxy, forwarded: [], 101), 400, .invalidLoginCredentials)
        }
    }

    @Test("from a peer that is not trusted, forged forwarding headers do not change the rate-limit key")
    func untrustedPeerForgesNothing() throws {
        for trusted in ["", "10.0.0.0/8, 127.0.0.2/32, ::1"] {
            try withAuthKura(configure: configure(trusted)) { kura in
                try kura.signUp("ann@example.com")
                let peer = try kura.client(source: "127.0.0.1")
                let allowed = try exhaust(peer, forwarded: [("X-Forwarded-For", "198.51.100.7")])
                #expect((20...21).contains(allowed), "trusted '\(trusted)': \(allowed)")
                for forged in [
                    [("X-Forwarded-For", "198.51.100.8")], [("Forwarded", "for=198.51.100.9")],
                    [("X-Forwarded-For", "198.51.100.10, 10.0.0.1")], [("X-Real-IP", "198.51.100.11")], [],
                ] {
                    let response = try peer.request(
                        "POST", "/api/auth/signin", json: ["email": "ann@example.com", "password": "secret-pw"],
                        headers: forged, auth: .none)
                    expectError(response, 429, .tooManyAttemptsTryLater)
                }
                // Another peer is another client, as ever.
                let elsewhere = try kura.client(source: "127.0.0.3")
                #expect(
                    try elsewhere.request(
                        "POST", "/api/auth/signin", json: ["email": "ann@example.com", "password": "secret-pw"],
                        auth: .none
                    ).status == 200)
            }
        }
    }

    @Test("with http.forwardedHeader Forwarded, RFC 7239's for= names the client and X-Forwarded-For is ignored")
    func forwardedHeader() throws {
        try withAuthKura(configure: { configuration in
            try configure("127.0.0.1")(&configuration)
            try configuration.set("http.forwardedHeader", "Forwarded")
        }) { kura in
            let proxy = try kura.client(source: "127.0.0.1")
            let guesser = [("Forwarded", #"for="[2001:db8::7]:4711";proto=https"#)]
            #expect((20...21).contains(try exhaust(proxy, forwarded: guesser)))
            // The same client written another way is the same client.
            expectError(
                try failedSignIn(proxy, forwarded: [("Forwarded", #"for="[2001:DB8:0::7]""#)], 99), 429,
                .tooManyAttemptsTryLater)
            // X-Forwarded-For is not the header now: the proxy's own bucket, still fresh.
            expectError(
                try failedSignIn(proxy, forwarded: [("X-Forwarded-For", "2001:db8::7")], 100), 400,
                .invalidLoginCredentials)
            expectError(
                try failedSignIn(proxy, forwarded: [("Forwarded", "for=198.51.100.8")], 101), 400,
                .invalidLoginCredentials)
        }
    }

    @Test("the access log names the client: the forwarded one from a trusted proxy, the peer otherwise")
    func accessLogNamesTheClient() throws {
        let logPath = TemporaryDirectory.uniquePath("proxy-log")
        let fd = open(logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        defer {
            Glibc.close(fd)
            unlink(logPath)
        }
        let server = try TestKura(logger: Logger(level: .info, fd: fd)) {
            try $0.set("http.trustedProxies", "127.0.0.1")
        }
        let forwarded = [("X-Forwarded-For", "198.51.100.7")]
        #expect(try server.client(source: "127.0.0.1").request("GET", "/api/health", headers: forwarded).status == 200)
        let forged = [("X-Forwarded-For", "198.51.100.8")]
        #expect(try server.client(source: "127.0.0.3").request("GET", "/api/health", headers: forged).status == 200)
        server.shutdown()
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(log.contains("GET /api/health 200 ") && log.contains(" client=198.51.100.7\n"), "\(log)")
        #expect(log.contains(" client=127.0.0.3\n") && !log.contains("198.51.100.8"), "\(log)")
    }

    @Test("the settings refuse what they cannot read")
    func settings() throws {
        var configuration = KuraConfiguration()
        #expect(configuration.http.trustedProxies.ranges.isEmpty)
        #expect(configuration.http.trustedProxies.header == "X-Forwarded-For")
        try configuration.set("http.trustedProxies", "127.0.0.1/32, ::1 10.0.0.0/8")
        #expect(
            configuration.http.trustedProxies.ranges.map(\.description) == ["127.0.0.1/32", "::1/128", "10.0.0.0/8"])
        try configuration.set("http.trustedProxies", "")
        #expect(configuration.http.trustedProxies.ranges.isEmpty)
        for bad in ["localhost", "10.0.0.0/40", "*"] {
            #expect(throws: ConfigurationError.self) { try configuration.set("http.trustedProxies", bad) }
        }
        try configuration.set("http.forwardedHeader", "X-Real-IP")
        #expect(configuration.http.trustedProxies.header == "X-Real-IP")
        for bad in ["", "X Forwarded", "a:b"] {
            #expect(throws: ConfigurationError.self) { try configuration.set("http.forwardedHeader", bad) }
        }
        // A list in the config file.
        let directory = try TemporaryDirectory("trusted-proxies")
        defer { directory.remove() }
        let file = directory.file("kura.json")
        try #"{"http": {"trustedProxies": ["127.0.0.1/32", "fd00::/8"]}}"#.write(
            toFile: file, atomically: true, encoding: .utf8)
        var fromFile = KuraConfiguration()
        try fromFile.applyFile(at: file)
        #expect(fromFile.http.trustedProxies.ranges.map(\.description) == ["127.0.0.1/32", "fd00::/8"])
    }
}
