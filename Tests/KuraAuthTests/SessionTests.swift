import KuraCore
import KuraModel
import Testing

@testable import KuraAuth

@Suite struct SessionTests {
    @Test func refreshRotatesTheRefreshToken() throws {
        let f = try Fixture()
        let first = try f.signUp()
        f.clock.advance(100)
        let second = try f.auth.refresh(refreshToken: first.refreshToken)
        #expect(second.refreshToken != first.refreshToken)
        let claims = try f.auth.verifyIDToken(second.idToken)
        let firstClaims = try f.auth.verifyIDToken(first.idToken)
        #expect(claims.sessionID == firstClaims.sessionID)
        #expect(claims.authTime == firstClaims.authTime && claims.issuedAt == firstClaims.issuedAt + 100)
        let third = try f.auth.refresh(refreshToken: second.refreshToken)
        _ = try f.auth.verifyIDToken(third.idToken)
        expectError(.invalidRefreshToken, 400) { _ = try f.auth.refresh(refreshToken: "bogus") }
        expectError(.invalidRefreshToken, 400) { _ = try f.auth.refresh(refreshToken: "") }
    }

    @Test func reuseOfARotatedTokenRevokesTheFamily() throws {
        let f = try Fixture()
        let first = try f.signUp()
        let other = try f.auth.signIn(email: "ann@example.com", password: "secret-pw")
        let second = try f.auth.refresh(refreshToken: first.refreshToken)
        _ = try f.auth.verifyIDToken(second.idToken)  // cached
        f.clock.advance(31)  // past the reuse grace (30 s)
        expectError(.invalidRefreshToken, 400) { _ = try f.auth.refresh(refreshToken: first.refreshToken) }
        // The whole family is dead: the current refresh token and the cached ID tokens.
        expectError(.invalidRefreshToken, 400) { _ = try f.auth.refresh(refreshToken: second.refreshToken) }
        expectError(.invalidIDToken, 401) { _ = try f.auth.verifyIDToken(second.idToken) }
        expectError(.invalidIDToken, 401) { _ = try f.auth.verifyIDToken(first.idToken) }
        // Other sessions are untouched.
        _ = try f.auth.verifyIDToken(other.idToken)
        _ = try f.auth.refresh(refreshToken: other.refreshToken)
    }

    @Test func retryWithTheTokenSpentLastWithinTheGraceGetsNewTokens() throws {
        let f = try Fixture()
        let first = try f.signUp()
        let lost = try f.auth.refresh(refreshToken: first.refreshToken)  // its answer never reaches the client
        f.clock.advance(10)
        let retried = try f.auth.refresh(refreshToken: first.refreshToken)
        #expect(retried.refreshToken != lost.refreshToken)
        #expect(retried.refreshToken != first.refreshToken)
        let claims = try f.auth.verifyIDToken(retried.idToken)
        #expect(claims.sessionID == (try f.auth.verifyIDToken(first.idToken)).sessionID)
        // The session goes on from the retried answer.
        let next = try f.auth.refresh(refreshToken: retried.refreshToken)
        _ = try f.auth.verifyIDToken(next.idToken)
        // The first token is no longer the one spent last: presenting it now is reuse, and ends the session.
        expectError(.invalidRefreshToken, 400) { _ = try f.auth.refresh(refreshToken: first.refreshToken) }
        expectError(.invalidRefreshToken, 400) { _ = try f.auth.refresh(refreshToken: next.refreshToken) }
        expectError(.invalidIDToken, 401) { _ = try f.auth.verifyIDToken(next.idToken) }
    }

    @Test func theTokenSpentInBetweenIsReuseAfterARetry() throws {
        let f = try Fixture()
        let first = try f.signUp()
        let lost = try f.auth.refresh(refreshToken: first.refreshToken)
        let retried = try f.auth.refresh(refreshToken: first.refreshToken)
        // `lost` was spent by the retry, with no grace of its own: whoever holds it is reusing a spent token.
        expectError(.invalidRefreshToken, 400) { _ = try f.auth.refresh(refreshToken: lost.refreshToken) }
        expectError(.invalidRefreshToken, 400) { _ = try f.auth.refresh(refreshToken: retried.refreshToken) }
    }

    @Test func withoutAGraceAnySpentTokenRevokesTheSession() throws {
        let f = try Fixture { $0.refreshTokenReuseGrace = 0 }
        let first = try f.signUp()
        let second = try f.auth.refresh(refreshToken: first.refreshToken)
        expectError(.invalidRefreshToken, 400) { _ = try f.auth.refresh(refreshToken: first.refreshToken) }
        expectError(.invalidRefreshToken, 400) { _ = try f.auth.refresh(refreshToken: second.refreshToken) }
    }

    @Test func signOutRevokesImmediatelyThoughCached() throws {
        let f = try Fixture()
        let a = try f.signUp()
        let b = try f.auth.signIn(email: "ann@example.com", password: "secret-pw")
        let claims = try f.auth.verifyIDToken(a.idToken)
        _ = try f.auth.verifyIDToken(b.idToken)
        try f.auth.signOut(claims)
        expectError(.invalidIDToken, 401) { _ = try f.auth.verifyIDToken(a.idToken) }
        expectError(.invalidRefreshToken, 400) { _ = try f.auth.refresh(refreshToken: a.refreshToken) }
        let bClaims = try f.auth.verifyIDToken(b.idToken)
        try f.auth.signOut(bClaims, allSessions: false)
        let c = try f.auth.signIn(email: "ann@example.com", password: "secret-pw")
        let d = try f.auth.signIn(email: "ann@example.com", password: "secret-pw")
        try f.auth.signOut(try f.auth.verifyIDToken(c.idToken), allSessions: true)
        expectError(.invalidIDToken, 401) { _ = try f.auth.verifyIDToken(d.idToken) }
        expectError(.invalidRefreshToken, 400) { _ = try f.auth.refresh(refreshToken: d.refreshToken) }
    }

    @Test func disablingRejectsTokensAndRefresh() throws {
        let f = try Fixture()
        let result = try f.signUp()
        _ = try f.auth.verifyIDToken(result.idToken)
        _ = try f.auth.updateUser(uid: result.user.uid, AdminUserUpdate(disabled: true))
        expectError(.userDisabled, 403) { _ = try f.auth.verifyIDToken(result.idToken) }
        expectError(.userDisabled, 403) { _ = try f.auth.refresh(refreshToken: result.refreshToken) }
        _ = try f.auth.updateUser(uid: result.user.uid, AdminUserUpdate(disabled: false))
        _ = try f.auth.verifyIDToken(result.idToken)
    }

    @Test func disablingInAnotherProcessIsSeenWithinAMinute() throws {
        let f = try Fixture()
        let result = try f.signUp()
        _ = try f.auth.verifyIDToken(result.idToken)
        _ = try f.reopen().updateUser(uid: result.user.uid, AdminUserUpdate(disabled: true))
        f.clock.advance(59)
        _ = try f.auth.verifyIDToken(result.idToken)  // still cached
        f.clock.advance(2)
        expectError(.userDisabled, 403) { _ = try f.auth.verifyIDToken(result.idToken) }
    }

    @Test func passwordResetRevokesEverySession() throws {
        let f = try Fixture()
        let a = try f.signUp()
        _ = try f.auth.verifyIDToken(a.idToken)
        let code = try #require(try f.auth.requestPasswordReset(email: "ANN@example.com"))
        let user = try f.auth.confirmPasswordReset(code: code, newPassword: "new-secret")
        #expect(user.emailVerified)
        expectError(.invalidIDToken, 401) { _ = try f.auth.verifyIDToken(a.idToken) }
        expectError(.invalidRefreshToken, 400) { _ = try f.auth.refresh(refreshToken: a.refreshToken) }
        expectError(.invalidLoginCredentials, 400) {
            _ = try f.auth.signIn(email: "ann@example.com", password: "secret-pw")
        }
        _ = try f.auth.signIn(email: "ann@example.com", password: "new-secret")
        #expect(try f.auth.requestPasswordReset(email: "nobody@example.com") == nil)
    }
}
