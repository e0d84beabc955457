import Foundation
import KuraCore
import KuraModel
import Synchronization
import Testing

@testable import KuraAuth

/// Every change that withdraws access is announced to `observeRevocations` observers, before the operation
/// returns, with the right scope; changes that only grant more are not. And a token's claims that grant power are
/// the account's as it is now.
@Suite struct RevocationTests {
    /// The revocations announced so far.
    final class Recorder: Sendable {
        private let list = Mutex<[Revocation]>([])
        func record(_ revocation: Revocation) { list.withLock { $0.append(revocation) } }
        /// What was recorded since the last call.
        func take() -> [Revocation] {
            list.withLock { list in
                defer { list.removeAll() }
                return list
            }
        }
    }

    /// A fixture that records announced revocations.
    private func observed() throws -> (Fixture, Recorder) {
        let f = try Fixture()
        let seen = Recorder()
        f.auth.observeRevocations { seen.record($0) }
        return (f, seen)
    }

    @Test("sign-out names its session; sign-out everywhere, disable, claims and delete name the user")
    func scopes() throws {
        let (f, seen) = try observed()
        let ann = try f.signUp()
        let claims = try f.auth.verifyIDToken(ann.idToken)
        try f.auth.signOut(claims)
        #expect(seen.take() == [Revocation(uid: ann.user.uid, sessionID: claims.sessionID)])

        let second = try f.auth.verifyIDToken(
            try f.auth.signIn(email: "ann@example.com", password: "secret-pw").idToken)
        try f.auth.signOut(second, allSessions: true)
        #expect(seen.take() == [Revocation(uid: ann.user.uid)])

        _ = try f.auth.updateUser(uid: ann.user.uid, AdminUserUpdate(displayName: "Ann"))
        #expect(seen.take().isEmpty)  // nothing withdrawn
        _ = try f.auth.updateUser(uid: ann.user.uid, AdminUserUpdate(emailVerified: true))
        #expect(seen.take().isEmpty)  // more, not less
        _ = try f.auth.updateUser(uid: ann.user.uid, AdminUserUpdate(customClaims: ["role": "x"]))
        #expect(seen.take() == [Revocation(uid: ann.user.uid)])
        _ = try f.auth.updateUser(uid: ann.user.uid, AdminUserUpdate(emailVerified: false))
        #expect(seen.take() == [Revocation(uid: ann.user.uid)])
        _ = try f.auth.updateUser(uid: ann.user.uid, AdminUserUpdate(disabled: true))
        #expect(seen.take() == [Revocation(uid: ann.user.uid)])
        try f.auth.deleteUser(uid: ann.user.uid)
        #expect(seen.take() == [Revocation(uid: ann.user.uid)])
    }

    @Test("a password change spares the session that made it")
    func passwordChange() throws {
        let (f, seen) = try observed()
        let ann = try f.signUp()
        let claims = try f.auth.verifyIDToken(ann.idToken)
        _ = try f.auth.updateProfile(claims, ProfileUpdate(password: "another-pw"))
        let revocation = try #require(seen.take().first)
        #expect(!revocation.covers(uid: ann.user.uid, sessionID: claims.sessionID))
        #expect(revocation.covers(uid: ann.user.uid, sessionID: "another-session"))
        #expect(!revocation.covers(uid: "someone-else", sessionID: "another-session"))
    }

    @Test("a password reset and the user's own account deletion revoke everything; a verification nothing")
    func userInitiated() throws {
        let (f, seen) = try observed()
        let ann = try f.signUp()
        _ = try f.auth.confirmEmailVerification(code: try #require(ann.verificationCode))
        #expect(seen.take().isEmpty)
        let reset = try #require(try f.auth.requestPasswordReset(email: "ann@example.com"))
        try f.auth.confirmPasswordReset(code: reset, newPassword: "another-pw")
        #expect(seen.take() == [Revocation(uid: ann.user.uid)])
        let fresh = try f.auth.signIn(email: "ann@example.com", password: "another-pw")
        try f.auth.deleteAccount(try f.auth.verifyIDToken(fresh.idToken))
        #expect(seen.take() == [Revocation(uid: ann.user.uid)])
    }

    @Test("a reused refresh token revokes its session")
    func refreshReuse() throws {
        let (f, seen) = try observed()
        let ann = try f.signUp()
        let sessionID = try f.auth.verifyIDToken(ann.idToken).sessionID
        _ = try f.auth.refresh(refreshToken: ann.refreshToken)
        f.clock.advance(f.auth.configuration.refreshTokenReuseGrace + 1)
        expectError(.invalidRefreshToken, 400) { _ = try f.auth.refresh(refreshToken: ann.refreshToken) }
        #expect(seen.take() == [Revocation(uid: ann.user.uid, sessionID: sessionID)])
    }

    @Test("verifyIDToken answers with the account's current claims, also from its cache")
    func currentClaims() throws {
        let f = try Fixture()
        let ann = try f.signUp()
        _ = try f.auth.updateUser(uid: ann.user.uid, AdminUserUpdate(customClaims: ["admin": true]))
        #expect(try f.auth.verifyIDToken(ann.idToken).isAdmin)  // the token itself has no claims
        #expect(f.auth.cachedClaims(token: ann.idToken)?.isAdmin == true)
        _ = try f.auth.updateUser(uid: ann.user.uid, AdminUserUpdate(customClaims: [:]))
        #expect(f.auth.cachedClaims(token: ann.idToken) == nil)  // invalidated
        #expect(try !f.auth.verifyIDToken(ann.idToken).isAdmin)
    }
}
