import KuraCore
import KuraModel
import Testing

@testable import KuraAuth
@testable import KuraSQLiteEngine

@Suite struct ActionCodeTests {
    @Test func verificationCodeIsSingleUse() throws {
        let f = try Fixture()
        let result = try f.signUp()
        let code = try #require(result.verificationCode)
        #expect(code.utf8.count >= 43)
        #expect(try f.auth.confirmEmailVerification(code: code).emailVerified)
        expectError(.invalidOOBCode, 400) { _ = try f.auth.confirmEmailVerification(code: code) }
        expectError(.invalidOOBCode, 400) { _ = try f.auth.confirmEmailVerification(code: "nonsense") }
        expectError(.invalidOOBCode, 400) { _ = try f.auth.confirmEmailVerification(code: "") }
        // New tokens carry the verified flag.
        let refreshed = try f.auth.refresh(refreshToken: result.refreshToken)
        #expect(try f.auth.verifyIDToken(refreshed.idToken).emailVerified)
    }

    @Test func codesAreStoredHashed() throws {
        let f = try Fixture()
        let code = try #require(try f.signUp().verificationCode)
        let store = try #require((f.auth.store as? CachedAccountStore)?.base as? SQLiteAccountStore)
        let stored = try store.read { try $0.rows("SELECT hash FROM action_codes") }
        #expect(stored.count == 1 && stored[0][0].blob == Sodium.sha256(code))
    }

    @Test func expiredCodes() throws {
        let f = try Fixture()
        let code = try #require(try f.signUp().verificationCode)
        let reset = try #require(try f.auth.requestPasswordReset(email: "ann@example.com"))
        f.clock.advance(3600)
        expectError(.expiredOOBCode, 400) { try f.auth.confirmPasswordReset(code: reset, newPassword: "new-secret") }
        f.clock.advance(86_400 - 3600 - 1)
        let fresh = try #require(try f.auth.requestPasswordReset(email: "ann@example.com"))
        f.clock.advance(1)
        expectError(.expiredOOBCode, 400) { _ = try f.auth.confirmEmailVerification(code: code) }
        try f.auth.confirmPasswordReset(code: fresh, newPassword: "new-secret")
    }

    @Test func codesAreKindBound() throws {
        let f = try Fixture()
        let verify = try #require(try f.signUp().verificationCode)
        let reset = try #require(try f.auth.requestPasswordReset(email: "ann@example.com"))
        expectError(.invalidOOBCode, 400) { _ = try f.auth.confirmEmailVerification(code: reset) }
        expectError(.invalidOOBCode, 400) {
            try f.auth.confirmPasswordReset(code: verify, newPassword: "new-secret")
        }
        expectError(.invalidOOBCode, 400) { _ = try f.auth.confirmEmailChange(code: verify) }
        // A wrong-kind attempt does not spend the code.
        _ = try f.auth.confirmEmailVerification(code: verify)
        try f.auth.confirmPasswordReset(code: reset, newPassword: "new-secret")
    }

    @Test func weakPasswordDoesNotSpendResetCode() throws {
        let f = try Fixture()
        try f.signUp()
        let reset = try #require(try f.auth.requestPasswordReset(email: "ann@example.com"))
        expectError(.weakPassword, 400) { try f.auth.confirmPasswordReset(code: reset, newPassword: "123") }
        expectError(.missingPassword, 400) { try f.auth.confirmPasswordReset(code: reset, newPassword: "") }
        try f.auth.confirmPasswordReset(code: reset, newPassword: "123456")
        expectError(.invalidOOBCode, 400) { try f.auth.confirmPasswordReset(code: reset, newPassword: "123456") }
    }

    @Test func sendVerificationForCurrentAddress() throws {
        let f = try Fixture { $0.sendVerificationOnSignUp = false }
        let claims = try f.auth.verifyIDToken(try f.signUp().idToken)
        let code = try f.auth.sendEmailVerification(claims)
        #expect(try f.auth.confirmEmailVerification(code: code).emailVerified)
        #expect(try f.auth.currentUser(claims).emailVerified)
    }

    @Test func resetOfDisabledAccountGivesNoCode() throws {
        let f = try Fixture()
        let uid = try f.signUp().user.uid
        _ = try f.auth.updateUser(uid: uid, AdminUserUpdate(disabled: true))
        #expect(try f.auth.requestPasswordReset(email: "ann@example.com") == nil)
        expectError(.invalidEmail, 400) { _ = try f.auth.requestPasswordReset(email: "bad") }
    }
}
