// Firebase names KuraClient does not offer: each must fail to compile with a message saying what to write.
// sdk/swift/check.sh type-checks this file against the SDK and compares the messages with the `// expect:` lines.
import KuraClient

func firebaseNames(_ auth: Auth) async throws {
    FirebaseApp.configure()  // expect: use Kura.configure(url:
    _ = try await auth.checkActionCode("code")  // expect: call applyActionCode(_:)
    _ = try await auth.verifyPasswordResetCode("code")  // expect: call confirmPasswordReset(withCode:newPassword:)
}
