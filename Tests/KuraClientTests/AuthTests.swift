import Foundation
import KuraClient
import KuraServerTestSupport
import KuraTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `kura.auth` against a real server: sign-up, sign-in, sign-out, profile calls, persistence and refresh.
@Suite struct AuthTests {
    @Test func createUserSignsInAndErrorsUseServerCodes() async throws {
        try await withServer { server in
            let kura = makeClient(server)
            #expect(kura.auth.currentUser == nil)
            let email = uniqueEmail()
            let result = try await kura.auth.createUser(withEmail: email, password: "secret-pw")
            #expect(result.user.email == email)
            #expect(result.user.isEmailVerified == false)
            #expect(kura.auth.currentUser?.uid == result.user.uid)

            let error = await #expect(throws: KuraError.self) {
                try await makeClient(server).auth.createUser(withEmail: email, password: "another-pw")
            }
            #expect(error?.code == .emailExists)
            #expect(error?.status == 400)
            #expect(error?.message.isEmpty == false)

            let weak = await #expect(throws: KuraError.self) {
                try await makeClient(server).auth.createUser(withEmail: uniqueEmail(), password: "x")
            }
            #expect(weak?.code == .weakPassword)

            let wrong = await #expect(throws: KuraError.self) {
                try await makeClient(server).auth.signIn(withEmail: email, password: "wrong-pw")
            }
            #expect(wrong?.code == .invalidLoginCredentials)

            let other = makeClient(server)
            let signedIn = try await other.auth.signIn(withEmail: email, password: "secret-pw")
            #expect(signedIn.user.uid == result.user.uid)
        }
    }

    @Test func signOutRevokesTheSessionOnTheServer() async throws {
        try await withServer { server in
            let (kura, _) = try await signedInClient(server)
            let token = try await #require(kura.auth.currentUser).getIDToken()
            #expect(try await me(server, token: token) == 200)
            try await kura.auth.signOut()
            #expect(kura.auth.currentUser == nil)
            // The ID token from before the sign-out stops working at once.
            #expect(try await me(server, token: token) == 401)
        }
    }

    @Test func emailVerificationAndReload() async throws {
        try await withServer { server in
            let (kura, _) = try await signedInClient(server)
            let user = try #require(kura.auth.currentUser)
            let email = try #require(user.email)
            try await user.sendEmailVerification()
            let code = try #require(try await server.actionCode(to: email, mode: "verifyEmail"))
            var request = URLRequest(url: server.url.appendingPathComponent("api/auth/verify-email/confirm"))
            request.httpMethod = "POST"
            request.httpBody = Data(#"{"code":"\#(code)"}"#.utf8)
            let (_, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(kura.auth.currentUser?.isEmailVerified == false)
            let reloaded = try await user.reload()
            #expect(reloaded.isEmailVerified)
            #expect(kura.auth.currentUser?.isEmailVerified == true)
        }
    }

    @Test func verifyThenSignInWhenTheServerRequiresVerifiedAddresses() async throws {
        try await withServer(configure: { $0.auth.requireVerifiedEmail = true }) { server in
            let kura = makeClient(server)
            let email = uniqueEmail()
            let created = try await kura.auth.createUser(withEmail: email, password: "secret-pw")
            #expect(!created.isSignedIn)
            #expect(created.user.email == email && !created.user.isEmailVerified)
            #expect(kura.auth.currentUser == nil)
            let refused = await #expect(throws: KuraError.self) {
                try await kura.auth.signIn(withEmail: email, password: "secret-pw")
            }
            #expect(refused?.code == .emailNotVerified)
            // Another mail, asked for by address; a mailed code verifies the account.
            try await kura.auth.sendEmailVerification(toEmail: email)
            let code = try #require(try await server.actionCode(to: email, mode: "verifyEmail"))
            var request = URLRequest(url: server.url.appendingPathComponent("api/auth/verify-email/confirm"))
            request.httpMethod = "POST"
            request.httpBody = Data(#"{"code":"\#(code)"}"#.utf8)
            let (_, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let signedIn = try await kura.auth.signIn(withEmail: email, password: "secret-pw")
            #expect(signedIn.isSignedIn && signedIn.user.isEmailVerified)
            #expect(kura.auth.currentUser?.uid == created.user.uid)
        }
    }

    @Test func passwordResetMailAndNewPassword() async throws {
        try await withServer { server in
            let (kura, _) = try await signedInClient(server)
            let email = try #require(kura.auth.currentUser?.email)
            try await kura.auth.sendPasswordReset(withEmail: email)
            // Unknown addresses get the same answer (no account enumeration).
            try await kura.auth.sendPasswordReset(withEmail: uniqueEmail("nobody"))
            let code = try #require(try await server.actionCode(to: email, mode: "resetPassword"))
            var request = URLRequest(url: server.url.appendingPathComponent("api/auth/password-reset/confirm"))
            request.httpMethod = "POST"
            request.httpBody = Data(#"{"code":"\#(code)","newPassword":"brand-new-pw"}"#.utf8)
            let (_, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            try await makeClient(server).auth.signIn(withEmail: email, password: "brand-new-pw")
        }
    }

    @Test func actionCodeSettingsURLBecomesTheLinksContinueURL() async throws {
        try await withServer { server in
            let (kura, _) = try await signedInClient(server)
            let user = try #require(kura.auth.currentUser)
            let email = try #require(user.email)
            let settings = ActionCodeSettings()
            settings.url = server.url.appendingPathComponent("after-reset")
            try await kura.auth.sendPasswordReset(withEmail: email, actionCodeSettings: settings)
            let link = try #require(try await server.actionLink(to: email, mode: "resetPassword"))
            let continueURL = URLComponents(string: link)?.queryItems?.first { $0.name == "continueUrl" }?.value
            #expect(continueURL == settings.url?.absoluteString)

            settings.url = URL(string: "ftp://example.com/x")
            let invalid = await #expect(throws: KuraError.self) {
                try await kura.auth.sendPasswordReset(withEmail: email, actionCodeSettings: settings)
            }
            #expect(invalid?.code == .invalidContinueURI)
            settings.url = URL(string: "https://elsewhere.example/welcome")
            let foreign = await #expect(throws: KuraError.self) { try await user.sendEmailVerification(with: settings) }
            #expect(foreign?.code == .unauthorizedDomain)
        }
    }

    @Test func updatePasswordAndDeleteAccount() async throws {
        try await withServer { server in
            let (kura, _) = try await signedInClient(server)
            let user = try #require(kura.auth.currentUser)
            let email = try #require(user.email)
            try await user.updatePassword(to: "changed-pw")
            let old = await #expect(throws: KuraError.self) {
                try await makeClient(server).auth.signIn(withEmail: email, password: "secret-pw")
            }
            #expect(old?.code == .invalidLoginCredentials)
            // This session survives its own password change.
            #expect(try await user.reload().uid == user.uid)
            try await makeClient(server).auth.signIn(withEmail: email, password: "changed-pw")

            try await user.delete()
            #expect(kura.auth.currentUser == nil)
            let gone = await #expect(throws: KuraError.self) {
                try await makeClient(server).auth.signIn(withEmail: email, password: "changed-pw")
            }
            #expect(gone?.code == .invalidLoginCredentials)
            // A `User` kept from before cannot act any more.
            let stale = await #expect(throws: KuraError.self) { try await user.reload() }
            #expect(stale?.code == .notSignedIn)
        }
    }

    @Test(.timeLimit(.minutes(1))) func authStateChangesReportSignInAndSignOut() async throws {
        try await withServer { server in
            let kura = makeClient(server)
            // Read the stream in step with the calls, so the test waits on events and never on a clock.
            var changes = kura.auth.authStateChanges.makeAsyncIterator()
            let initial = try #require(await changes.next())
            #expect(initial == nil)
            let email = uniqueEmail()
            try await kura.auth.createUser(withEmail: email, password: "secret-pw")
            let signedIn = try #require(await changes.next())
            #expect(signedIn?.email == email)
            try await kura.auth.signOut()
            let signedOut = try #require(await changes.next())
            #expect(signedOut == nil)
        }
    }

    @Test func sessionPersistsInAnOwnerOnlyFile() async throws {
        try await withServer { server in
            let file = temporaryFile("session.json")
            defer { try? FileManager.default.removeItem(at: file) }
            let (kura, uid) = try await signedInClient(server, settings: .init(session: .file(file)))
            let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            let document = kura.collection("users").document(uid)
            try await document.setData(["name": "Ada"])

            // A new client (a relaunch) is signed in from the file and can use the session.
            let relaunched = makeClient(server, settings: .init(session: .file(file)))
            #expect(relaunched.auth.currentUser?.uid == uid)
            #expect(try await relaunched.document("users/\(uid)").getDocument()["name"] == "Ada")

            try await relaunched.auth.signOut()
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test func idTokensRefreshThemselvesAcrossExpiry() async throws {
        // 4-second ID tokens (the server counts whole seconds, so one may live barely 3): the client refreshes
        // shortly before expiry, and again after the server rejects one.
        try await withServer(idTokenLifetime: 4) { server in
            let file = temporaryFile("session.json")
            defer { try? FileManager.default.removeItem(at: file) }
            let (kura, uid) = try await signedInClient(server, settings: .init(session: .file(file)))
            let user = try #require(kura.auth.currentUser)
            let first = try await user.getIDToken()
            let document = kura.collection("users").document(uid)
            try await document.setData(["n": 1])
            try await Task.sleep(for: .seconds(4.5))
            // The first token has expired on the server; the SDK refreshes before using it.
            #expect(try await me(server, token: first) == 401)
            #expect(try await document.getDocument()["n"] == 1)
            let second = try await user.getIDToken()
            #expect(second != first)
            #expect(try await me(server, token: second) == 200)
            // The rotated refresh token was persisted: a relaunch still works after the next expiry.
            try await Task.sleep(for: .seconds(4.5))
            let relaunched = makeClient(server, settings: .init(session: .file(file)))
            #expect(try await relaunched.document("users/\(uid)").getDocument()["n"] == 1)
            // Concurrent calls share one refresh (a spent refresh token presented twice would revoke the session).
            try await Task.sleep(for: .seconds(4.5))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { _ = try await document.getDocument() } }
                try await group.waitForAll()
            }
            #expect(kura.auth.currentUser != nil)
            #expect(try await document.getDocument()["n"] == 1)
        }
    }

    @Test func aDisabledAccountIsSignedOutAtItsNextCall() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let (status, _) = try await server.admin("PATCH", "/api/admin/users/\(uid)", json: ["disabled": true])
            #expect(status == 200)
            let error = await #expect(throws: KuraError.self) {
                try await kura.document("users/\(uid)").getDocument()
            }
            #expect(error?.code == .userDisabled || error?.code == .unauthenticated)
            #expect(kura.auth.currentUser == nil)
        }
    }
}

/// `GET /api/auth/me` with `token`: the status.
func me(_ server: TestKura, token: String) async throws -> Int {
    var request = URLRequest(url: server.url.appendingPathComponent("api/auth/me"))
    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    let (_, response) = try await URLSession.shared.data(for: request)
    return (response as? HTTPURLResponse)?.statusCode ?? 0
}

/// Values collected by a concurrent task.
actor Recorder<Value: Sendable> {
    private(set) var values: [Value] = []
    func append(_ value: Value) { values.append(value) }
}
