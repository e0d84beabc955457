import CSodium
import Foundation
import KuraCore
import KuraModel
import Testing

@testable import KuraAuth

@Suite struct IDTokenTests {
    private func parts(_ token: String) throws -> (
        header: JSONObject, payload: JSONObject, input: [UInt8], signature: [UInt8]
    ) {
        let pieces = token.split(separator: ".").map(String.init)
        try #require(pieces.count == 3)
        let header = try JSONValue.parse(try #require(Base64.decode(pieces[0], .urlSafe))).objectValue!
        let payload = try JSONValue.parse(try #require(Base64.decode(pieces[1], .urlSafe))).objectValue!
        return (
            header, payload, Array((pieces[0] + "." + pieces[1]).utf8), try #require(Base64.decode(pieces[2], .urlSafe))
        )
    }

    @Test func tokenShapeAndSignatureVerifiesWithJWKS() throws {
        let f = try Fixture()
        let uid = try f.auth.createUser(email: "root@example.com", password: "secret-pw", admin: true).uid
        let token = try f.auth.signIn(email: "root@example.com", password: "secret-pw").idToken
        let (header, payload, input, signature) = try parts(token)
        #expect(header["alg"] == "EdDSA" && header["typ"] == "JWT")
        let now = Int64(f.clock.now)
        #expect(payload["sub"] == .string(uid))
        #expect(payload["email"] == "root@example.com" && payload["email_verified"] == true)
        #expect(payload["iat"] == .int(now) && payload["exp"] == .int(now + 3600) && payload["auth_time"] == .int(now))
        #expect(payload["iss"] == "kura" && payload["aud"] == "kura")
        #expect(payload["sid"]?.stringValue != nil)
        #expect(payload["admin"] == true)
        let keys = try #require(f.auth.jwks().objectValue?["keys"]?.arrayValue)
        let jwk = try #require(keys.first?.objectValue)
        #expect(jwk["kty"] == "OKP" && jwk["crv"] == "Ed25519" && jwk["alg"] == "EdDSA" && jwk["use"] == "sig")
        #expect(jwk["kid"] == header["kid"])
        let x = try #require(jwk["x"]?.stringValue.flatMap { Base64.decode($0, .urlSafe) })
        #expect(crypto_sign_verify_detached(signature, input, UInt64(input.count), x) == 0)
        let claims = try f.auth.verifyIDToken(token)
        #expect(claims.isAdmin && claims.customClaims == ["admin": true])
    }

    @Test func expiryUsesTheClock() throws {
        let f = try Fixture { $0.idTokenLifetime = 30 }
        let token = try f.signUp().idToken
        _ = try f.auth.verifyIDToken(token)  // now cached
        f.clock.advance(29)
        _ = try f.auth.verifyIDToken(token)
        f.clock.advance(1)
        expectError(.tokenExpired, 401) { _ = try f.auth.verifyIDToken(token) }
        // Uncached path too (another process).
        expectError(.tokenExpired, 401) { _ = try f.reopen().verifyIDToken(token) }
    }

    @Test func tamperedAndForeignTokensAreInvalid() throws {
        let f = try Fixture()
        let token = try f.signUp().idToken
        var pieces = token.split(separator: ".").map(String.init)
        var payload = try JSONValue.parse(Base64.decode(pieces[1], .urlSafe)!).objectValue!
        payload["admin"] = true
        pieces[1] = Base64.encode(JSONValue.object(payload).jsonBytes, .urlSafe)
        expectError(.invalidIDToken, 401) { _ = try f.auth.verifyIDToken(pieces.joined(separator: ".")) }
        for garbage in ["", "abc", "a.b.c", token + "x", String(token.dropLast(2))] {
            expectError(.invalidIDToken, 401) { _ = try f.auth.verifyIDToken(garbage) }
        }
        let other = try Fixture()
        let foreign = try other.signUp().idToken
        expectError(.invalidIDToken, 401) { _ = try f.auth.verifyIDToken(foreign) }
        let wrongAudience = try f.reopen(
            {
                var c = AuthConfiguration.lowCostForTesting; c.audience = "other"; return c
            }())
        expectError(.invalidIDToken, 401) { _ = try wrongAudience.verifyIDToken(token) }
    }

    @Test func keyRotationKeepsOldTokensValidAndPersists() throws {
        let f = try Fixture()
        let old = try f.signUp().idToken
        let oldKid = try parts(old).header["kid"]
        try f.auth.rotateSigningKey()
        let new = try f.auth.signIn(email: "ann@example.com", password: "secret-pw").idToken
        let newKid = try parts(new).header["kid"]
        #expect(oldKid != newKid)
        let kids = f.auth.jwks().objectValue!["keys"]!.arrayValue!.map { $0.objectValue!["kid"]! }
        #expect(kids == [newKid!, oldKid!])
        let restarted = try f.reopen()
        _ = try restarted.verifyIDToken(old)
        _ = try restarted.verifyIDToken(new)
        #expect(restarted.jwks() == f.auth.jwks())
        // Retention: after more rotations than retiredSigningKeys, the oldest key is gone.
        for _ in 0..<3 { try f.auth.rotateSigningKey() }
        expectError(.invalidIDToken, 401) { _ = try f.reopen().verifyIDToken(old) }
    }

    @Test func keyFileIsPrivate() throws {
        let f = try Fixture()
        var info = stat()
        #expect(stat(f.directory + "/auth-signing-keys.json", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        try f.auth.rotateSigningKey()
        #expect(stat(f.directory + "/auth-signing-keys.json", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test func repeatedVerificationIsCached() throws {
        let f = try Fixture()
        let token = try f.signUp().idToken
        _ = try f.auth.verifyIDToken(token)
        #expect(f.auth.cache.count == 1)
        // A cached entry is served without the database: deleting the row behind the service's back is not seen
        // until the re-check interval passes.
        try f.auth.store.deleteAccount(uid: try f.auth.verifyIDToken(token).uid)
        _ = try f.auth.verifyIDToken(token)
        f.clock.advance(61)
        expectError(.invalidIDToken, 401) { _ = try f.auth.verifyIDToken(token) }
    }

    @Test("the database re-check is due after an interval of elapsed time, even if the wall clock was set back")
    func recheckIgnoresWallClockSteps() throws {
        let f = try Fixture()
        let wall = f.clock
        let elapsed = TestClock(0)
        let auth = try AuthService(
            directory: f.directory, configuration: .lowCostForTesting,
            clock: AuthClock(now: { wall.now }, elapsed: { elapsed.now }))
        let token = try auth.signUp(email: "bob@example.com", password: "secret-pw").idToken
        try auth.store.deleteAccount(uid: try auth.verifyIDToken(token).uid)
        wall.advance(-30)  // set back: on the wall clock the entry would look 30 s younger
        elapsed.advance(61)
        expectError(.invalidIDToken, 401) { _ = try auth.verifyIDToken(token) }
    }
}
