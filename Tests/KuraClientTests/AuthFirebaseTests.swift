import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

@testable import KuraClient

/// Firebase Auth's shapes: error codes, completion handlers, action codes, the language of mails, one verification
/// mail per sign-up.
@Suite struct AuthFirebaseTests {
    @Test func errorsReadAsFirebaseErrors() async throws {
        try await withServer { server in
            let kura = makeClient(server)
            let email = uniqueEmail()
            try await kura.auth.createUser(withEmail: email, password: "secret-pw")
            let error: any Error = try #require(
                await #expect(throws: KuraError.self) {
                    try await makeClient(server).auth.createUser(withEmail: email, password: "secret-pw")
                })
            #expect(AuthErrorCode(rawValue: error._code) == .emailAlreadyInUse)
            #expect(AuthErrorCode.Code(rawValue: (error as NSError).code) == .emailAlreadyInUse)
            #expect(error.localizedDescription == (error as? KuraError)?.message)
            #expect(!error.localizedDescription.contains("KuraError"))

            let wrong: any Error = try #require(
                await #expect(throws: KuraError.self) {
                    try await makeClient(server).auth.signIn(withEmail: email, password: "wrong-pw")
                })
            #expect(AuthErrorCode(rawValue: wrong._code) == .invalidCredential)

            let denied: any Error = try #require(
                await #expect(throws: KuraError.self) {
                    try await kura.document("elsewhere/doc").getDocument()
                })
            #expect(AuthErrorCode(rawValue: denied._code) == nil)
            #expect(FirestoreErrorCode(rawValue: denied._code) == .permissionDenied)
            #expect((denied as? KuraError)?.firestoreErrorCode == .permissionDenied)
        }
    }

    @Test func networkFailureIsNetworkError() async throws {
        let kura = Kura(url: URL(string: "http://127.0.0.1:1")!, settings: .init(session: .memory))
        let error: any Error = try #require(
            await #expect(throws: KuraError.self) {
                try await kura.auth.signIn(withEmail: "a@example.com", password: "secret-pw")
            })
        #expect(AuthErrorCode(rawValue: error._code) == .networkError)
    }

    @Test func signUpThenSendEmailVerificationMailsOnce() async throws {
        try await withServer { server in
            let kura = makeClient(server)
            let email = uniqueEmail()
            let result = try await kura.auth.createUser(withEmail: email, password: "secret-pw")
            try await result.user.sendEmailVerification()
            #expect(try await server.mails(to: email, atLeast: 1).count == 1)
            // Asked again later ("resend"), it sends.
            try await result.user.sendEmailVerification()
            #expect(try await server.mails(to: email, atLeast: 2).count == 2)
        }
    }

    @Test func withoutTheSignUpMailSendEmailVerificationSends() async throws {
        try await withServer(configure: { $0.auth.sendVerificationOnSignUp = false }) { server in
            let kura = makeClient(server)
            let email = uniqueEmail()
            let result = try await kura.auth.createUser(withEmail: email, password: "secret-pw")
            #expect(try await server.mails(to: email).isEmpty)
            try await result.user.sendEmailVerification()
            #expect(try await server.mails(to: email, atLeast: 1).count == 1)
        }
    }

    @Test func actionCodes() async throws {
        try await withServer { server in
            let (kura, _) = try await signedInClient(server)
            let email = try #require(kura.auth.currentUser?.email)
            let verify = try #require(try await server.actionCode(to: email, mode: "verifyEmail"))
            try await kura.auth.applyActionCode(verify)
            #expect(try await kura.auth.currentUser?.reload().isEmailVerified == true)
            let reused = await #expect(throws: KuraError.self) { try await kura.auth.applyActionCode(verify) }
            #expect(reused?.authErrorCode == .invalidActionCode)

            try await kura.auth.sendPasswordReset(withEmail: email)
            let reset = try #require(try await server.actionCode(to: email, mode: "resetPassword"))
            let weak = await #expect(throws: KuraError.self) {
                try await kura.auth.confirmPasswordReset(withCode: reset, newPassword: "x")
            }
            #expect(weak?.authErrorCode == .weakPassword)
            let outcome = Shared<String?>(nil)
            kura.auth.confirmPasswordReset(withCode: reset, newPassword: "brand-new-pw") { error in
                outcome.withLock { $0 = "\(isOnMainQueue()) \(error.map { "\($0)" } ?? "ok")" }
            }
            #expect(await eventually { outcome.current != nil })
            #expect(outcome.current == "true ok")
            try await makeClient(server).auth.signIn(withEmail: email, password: "brand-new-pw")
        }
    }

    @Test func checkActionCodeAndVerifyPasswordResetCodeDoNotSpendTheCode() async throws {
        try await withServer { server in
            let (kura, _) = try await signedInClient(server)
            let email = try #require(kura.auth.currentUser?.email)
            let verify = try #require(try await server.actionCode(to: email, mode: "verifyEmail"))
            for _ in 0..<2 {
                let info = try await kura.auth.checkActionCode(verify)
                #expect(info == ActionCodeInfo(operation: .verifyEmail, email: email, previousEmail: nil))
            }
            let notReset = await #expect(throws: KuraError.self) {
                try await kura.auth.verifyPasswordResetCode(verify)
            }
            #expect(notReset?.authErrorCode == .invalidActionCode)
            try await kura.auth.applyActionCode(verify)
            let spent = await #expect(throws: KuraError.self) { try await kura.auth.checkActionCode(verify) }
            #expect(spent?.authErrorCode == .invalidActionCode)

            try await kura.auth.sendPasswordReset(withEmail: email)
            let reset = try #require(try await server.actionCode(to: email, mode: "resetPassword"))
            #expect(try await kura.auth.verifyPasswordResetCode(reset) == email)
            let outcome = Shared<String?>(nil)
            kura.auth.verifyPasswordResetCode(reset) { address, error in
                outcome.withLock { $0 = "\(isOnMainQueue()) \(address ?? "nil") \(error.map { "\($0)" } ?? "ok")" }
            }
            #expect(await eventually { outcome.current != nil })
            #expect(outcome.current == "true \(email) ok")
            let checked = Shared<String?>(nil)
            kura.auth.checkActionCode("bogus") { info, error in
                let code = (error as? KuraError)?.authErrorCode
                checked.withLock { $0 = "\(isOnMainQueue()) \(info == nil) \(code.map { "\($0)" } ?? "none")" }
            }
            #expect(await eventually { checked.current != nil })
            #expect(checked.current == "true true invalidActionCode")
            try await kura.auth.confirmPasswordReset(withCode: reset, newPassword: "brand-new-pw")
            try await makeClient(server).auth.signIn(withEmail: email, password: "brand-new-pw")
        }
    }

    @Test func actionCodeURLsFromMailLinks() async throws {
        try await withServer { server in
            let (kura, _) = try await signedInClient(server)
            let email = try #require(kura.auth.currentUser?.email)
            try await kura.auth.sendPasswordReset(withEmail: email)
            let links = try await server.mails(to: email, atLeast: 2).compactMap { $0["actionLink"] as? String }
            let parsed = links.compactMap(ActionCodeURL.init(link:))
            #expect(parsed.map(\.operation).sorted { "\($0)" < "\($1)" } == [.passwordReset, .verifyEmail])
            let verify = try #require(parsed.first { $0.operation == .verifyEmail })
            try await kura.auth.applyActionCode(verify.code)
            #expect(try await kura.auth.currentUser?.reload().isEmailVerified == true)
            #expect(ActionCodeURL(link: "https://example.com/auth/action?mode=verifyEmail") == nil)
            #expect(ActionCodeURL(link: "https://example.com/x?mode=other&code=c")?.operation == .unknown)
        }
    }

    @Test func languageCodeChoosesTheMailLanguage() async throws {
        try await withServer { server in
            let (kura, _) = try await signedInClient(server)
            let email = try #require(kura.auth.currentUser?.email)
            #expect(kura.auth.languageCode == nil)
            kura.auth.languageCode = "ja"
            try await kura.auth.sendPasswordReset(withEmail: email)
            kura.auth.languageCode = nil
            try await kura.auth.sendPasswordReset(withEmail: email)
            let subjects = try await server.mails(to: email, atLeast: 3).compactMap { $0["subject"] as? String }
            // The sign-up verification and the second reset in English, the first reset in Japanese.
            let japanese = subjects.filter { $0.unicodeScalars.contains { !$0.isASCII } }
            #expect(subjects.count == 3)
            #expect(japanese.count == 1, "\(subjects)")
            kura.auth.useAppLanguage()
            #expect(kura.auth.languageCode?.isEmpty == false)
        }
    }

    @Test func synchronousSignOutAndStateListener() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let seen = Shared<[String]>([])
            let handle = kura.auth.addStateDidChangeListener { _, user in
                seen.withLock { $0.append("\(isOnMainQueue()) \(user?.uid ?? "nil")") }
            }
            #expect(await eventually { seen.current.count == 1 })
            try signOutAsFirebaseDoes(kura.auth)
            #expect(kura.auth.currentUser == nil)
            #expect(await eventually { seen.current.count == 2 })
            #expect(seen.current == ["true \(uid)", "true nil"])
            kura.auth.removeStateDidChangeListener(handle)
        }
    }
}

/// Firebase's `try Auth.auth().signOut()` in synchronous code (an `async` caller gets the `async` overload).
func signOutAsFirebaseDoes(_ auth: Auth) throws {
    try auth.signOut()
}
