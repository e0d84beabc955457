import KuraCore
import KuraModel
import Testing

@testable import KuraAuth

@Suite struct ProfileTests {
    @Test func displayNameNeedsNoRecentLogin() throws {
        let f = try Fixture()
        let claims = try f.auth.verifyIDToken(try f.signUp().idToken)
        f.clock.advance(3000)
        let updated = try f.auth.updateProfile(claims, ProfileUpdate(displayName: "Ann B"))
        #expect(updated.user.displayName == "Ann B" && updated.emailChangeCode == nil)
        #expect(try f.auth.updateProfile(claims, ProfileUpdate(displayName: .some(nil))).user.displayName == nil)
        expectError(.invalidArgument, 400) {
            _ = try f.auth.updateProfile(claims, ProfileUpdate(displayName: String(repeating: "n", count: 257)))
        }
    }

    @Test func passwordChangeNeedsRecentLoginAndSignsOutOtherSessions() throws {
        let f = try Fixture()
        let a = try f.signUp()
        let b = try f.auth.signIn(email: "ann@example.com", password: "secret-pw")
        let aClaims = try f.auth.verifyIDToken(a.idToken)
        _ = try f.auth.verifyIDToken(b.idToken)
        f.clock.advance(301)
        expectError(.credentialTooOldLoginAgain, 401) {
            _ = try f.auth.updateProfile(aClaims, ProfileUpdate(password: "new-secret"))
        }
        let c = try f.auth.signIn(email: "ann@example.com", password: "secret-pw")
        let cClaims = try f.auth.verifyIDToken(c.idToken)
        expectError(.weakPassword, 400) { _ = try f.auth.updateProfile(cClaims, ProfileUpdate(password: "123")) }
        _ = try f.auth.updateProfile(cClaims, ProfileUpdate(password: "new-secret"))
        _ = try f.auth.verifyIDToken(c.idToken)
        expectError(.invalidIDToken, 401) { _ = try f.auth.verifyIDToken(b.idToken) }
        _ = try f.auth.signIn(email: "ann@example.com", password: "new-secret")
    }

    @Test func emailChangeAppliesOnConfirm() throws {
        let f = try Fixture()
        let claims = try f.auth.verifyIDToken(try f.signUp().idToken)
        try f.signUp("taken@example.com")
        expectError(.emailExists, 400) {
            _ = try f.auth.updateProfile(claims, ProfileUpdate(email: "Taken@example.com"))
        }
        expectError(.invalidEmail, 400) { _ = try f.auth.updateProfile(claims, ProfileUpdate(email: "nope")) }
        let result = try f.auth.updateProfile(claims, ProfileUpdate(email: "Ann2@Example.com"))
        #expect(result.pendingEmail == "Ann2@example.com" && result.user.email == "ann@example.com")
        let code = try #require(result.emailChangeCode)
        let user = try f.auth.confirmEmailChange(code: code)
        #expect(user.email == "Ann2@example.com" && user.emailVerified)
        _ = try f.auth.signIn(email: "ann2@example.com", password: "secret-pw")
        expectError(.invalidLoginCredentials, 400) {
            _ = try f.auth.signIn(email: "ann@example.com", password: "secret-pw")
        }
        expectError(.invalidOOBCode, 400) { _ = try f.auth.confirmEmailChange(code: code) }
        f.clock.advance(301)
        expectError(.credentialTooOldLoginAgain, 401) {
            _ = try f.auth.updateProfile(claims, ProfileUpdate(email: "ann3@example.com"))
        }
    }

    @Test func deleteAccount() throws {
        let f = try Fixture()
        let result = try f.signUp()
        let claims = try f.auth.verifyIDToken(result.idToken)
        f.clock.advance(301)
        expectError(.credentialTooOldLoginAgain, 401) { try f.auth.deleteAccount(claims) }
        let fresh = try f.auth.signIn(email: "ann@example.com", password: "secret-pw")
        try f.auth.deleteAccount(try f.auth.verifyIDToken(fresh.idToken))
        expectError(.invalidIDToken, 401) { _ = try f.auth.verifyIDToken(fresh.idToken) }
        expectError(.invalidRefreshToken, 400) { _ = try f.auth.refresh(refreshToken: result.refreshToken) }
        expectError(.invalidLoginCredentials, 400) {
            _ = try f.auth.signIn(email: "ann@example.com", password: "secret-pw")
        }
        try f.signUp()  // the address is free again
    }
}
