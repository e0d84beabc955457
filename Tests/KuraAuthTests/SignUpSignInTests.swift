import KuraCore
import KuraModel
import Testing

@testable import KuraAuth

@Suite struct SignUpSignInTests {
    @Test func signUpReturnsUserTokensAndVerificationCode() throws {
        let f = try Fixture()
        let result = try f.auth.signUp(email: "  Ann@Example.COM ", password: "secret-pw", displayName: "Ann")
        #expect(result.user.email == "Ann@example.com")
        #expect(result.user.displayName == "Ann")
        #expect(!result.user.emailVerified && !result.user.disabled)
        #expect(result.expiresIn == 3600)
        #expect(result.refreshToken.utf8.count >= 43)
        #expect(result.verificationCode != nil)
        let json = result.json.objectValue!
        #expect(Set(json.keys) == ["user", "idToken", "refreshToken", "expiresIn"])
        #expect(
            Set(json["user"]!.objectValue!.keys)
                == ["uid", "email", "emailVerified", "displayName", "createTime", "disabled", "customClaims"])
        let claims = try f.auth.verifyIDToken(result.idToken)
        #expect(claims.uid == result.user.uid && claims.email == "Ann@example.com" && !claims.emailVerified)
    }

    @Test func signUpWithoutVerificationCodeWhenConfiguredOff() throws {
        let f = try Fixture { $0.sendVerificationOnSignUp = false }
        #expect(try f.signUp().verificationCode == nil)
    }

    @Test func signUpErrors() throws {
        let f = try Fixture()
        try f.signUp("ann@example.com")
        expectError(.emailExists, 400) { try f.signUp("ANN@EXAMPLE.com") }
        expectError(.invalidEmail, 400) { try f.signUp("not-an-email") }
        expectError(.weakPassword, 400) { try f.signUp("bob@example.com", "12345") }
        expectError(.missingPassword, 400) { try f.signUp("bob@example.com", "") }
        expectError(.invalidArgument, 400) {
            try f.signUp("bob@example.com", String(repeating: "x", count: 4097))
        }
        #expect(try f.signUp("bob@example.com", "123456").user.email == "bob@example.com")
    }

    @Test func signInAndItsErrors() throws {
        let f = try Fixture()
        let created = try f.signUp()
        let signedIn = try f.auth.signIn(email: "ANN@example.com", password: "secret-pw")
        #expect(signedIn.user.uid == created.user.uid)
        #expect(
            try f.auth.verifyIDToken(signedIn.idToken).sessionID
                != (try f.auth.verifyIDToken(created.idToken)).sessionID)
        expectError(.invalidLoginCredentials, 400) {
            _ = try f.auth.signIn(email: "ann@example.com", password: "wrong-pw")
        }
        expectError(.invalidLoginCredentials, 400) {
            _ = try f.auth.signIn(email: "nobody@example.com", password: "secret-pw")
        }
        expectError(.missingPassword, 400) { _ = try f.auth.signIn(email: "ann@example.com", password: "") }
        expectError(.invalidEmail, 400) { _ = try f.auth.signIn(email: "ann", password: "secret-pw") }
        _ = try f.auth.updateUser(uid: created.user.uid, AdminUserUpdate(disabled: true))
        expectError(.userDisabled, 403) { _ = try f.auth.signIn(email: "ann@example.com", password: "secret-pw") }
        // A disabled account still answers INVALID_LOGIN_CREDENTIALS to a wrong password: no state leaks.
        expectError(.invalidLoginCredentials, 400) {
            _ = try f.auth.signIn(email: "ann@example.com", password: "nope-nope")
        }
    }

    @Test func requireVerifiedEmail() throws {
        let f = try Fixture { $0.requireVerifiedEmail = true }
        let result = try f.signUp()
        #expect(!result.isSignedIn && result.refreshToken.isEmpty)  // no session before verification
        expectError(.emailNotVerified, 403) {
            _ = try f.auth.signIn(email: "ann@example.com", password: "secret-pw")
        }
        _ = try f.auth.confirmEmailVerification(code: result.verificationCode!)
        #expect(try f.auth.signIn(email: "ann@example.com", password: "secret-pw").user.emailVerified)
    }

    @Test func passwordHashIsArgon2idAndUpgradedOnSignIn() throws {
        let f = try Fixture()
        let uid = try f.signUp().user.uid
        let hash = try #require(try f.auth.store.account(uid: uid)).passwordHash
        #expect(hash.hasPrefix("$argon2id$"))
        var stronger = AuthConfiguration.lowCostForTesting
        stronger.passwordOpsLimit += 1
        let upgraded = try f.reopen(stronger)
        _ = try upgraded.signIn(email: "ann@example.com", password: "secret-pw")
        // Read storage itself: `upgraded` is another instance, whose writes this instance's cache does not see.
        let storage = (f.auth.store as? CachedAccountStore)?.base ?? f.auth.store
        let newHash = try #require(try storage.account(uid: uid)).passwordHash
        #expect(newHash != hash && newHash.contains("t=\(stronger.passwordOpsLimit)"))
    }

    /// The property is proven by structure, not by a clock (the timing is measured in bench/auth.sh): an unknown
    /// address runs exactly one real argon2id verification with the same cost parameters as a wrong password.
    @Test func unknownEmailRunsTheSameVerificationAsWrongPassword() throws {
        let f = try Fixture {
            $0.passwordOpsLimit = 2
            $0.passwordMemLimit = 4 * 1024 * 1024
        }
        try f.signUp()
        let log = f.auth.hasher.verifications
        let before = log.count
        #expect(throws: APIError.self) { try f.auth.signIn(email: "ann@example.com", password: "wrong-pw") }
        #expect(log.count == before + 1)
        let wrongPasswordParameters = log.lastParameters
        #expect(wrongPasswordParameters == "m=4096,t=2,p=1")
        #expect(throws: APIError.self) { try f.auth.signIn(email: "zed@example.com", password: "wrong-pw") }
        #expect(log.count == before + 2, "an unknown address must verify against a dummy hash")
        #expect(log.lastParameters == wrongPasswordParameters)
    }
}
