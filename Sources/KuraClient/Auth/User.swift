import Foundation
internal import KuraModel

/// A signed-in account, as `kura.auth.currentUser` gives it. The properties are a snapshot: after `reload()`,
/// read `kura.auth.currentUser` again (or use the value `reload()` returns).
public struct User: Sendable, Equatable, CustomStringConvertible {
    let profile: UserProfile
    let auth: Auth

    init(profile: UserProfile, auth: Auth) {
        self.profile = profile
        self.auth = auth
    }

    /// The account's stable ID (the `{uid}` of `users/{uid}` in the default rules).
    public var uid: String { profile.uid }
    public var email: String? { profile.email }
    /// Whether the address has been confirmed through the verification mail.
    public var isEmailVerified: Bool { profile.emailVerified }
    public var displayName: String? { profile.displayName }

    public var description: String { "User(\(uid), \(email ?? "no email")\(isEmailVerified ? ", verified" : ""))" }

    public static func == (lhs: User, rhs: User) -> Bool { lhs.profile == rhs.profile }

    /// Reads the account again from the server (`GET /api/auth/me`), e.g. to see `isEmailVerified` change after
    /// the user followed the mail link, and updates `currentUser`.
    @discardableResult
    public func reload() async throws -> User {
        try await authCall {
            let response = try await call(APIRequest("GET", "/api/auth/me"))
            let fresh = try UserProfile(json: try response.object()["user"])
            let session = auth.update { $0.profile = fresh }
            return User(profile: session?.profile ?? fresh, auth: auth)
        }
    }

    /// A valid ID token for calling your own services, refreshed first when it is about to expire (or always,
    /// with `forcingRefresh`).
    public func getIDToken(forcingRefresh: Bool = false) async throws -> String {
        try await authCall {
            try checkCurrent()
            if forcingRefresh { return try await auth.refresh().idToken }
            guard let token = try await auth.validIDToken() else { throw KuraError.notSignedIn("getIDToken") }
            return token
        }
    }

    /// Mails a verification link to the user's address (`POST /api/auth/verify-email`). The first call within
    /// 10 minutes after `createUser` sends nothing when the server already mailed a link at sign-up (its
    /// `auth.sendVerificationOnSignUp`, on by default), so a Firebase app that calls this right after
    /// `createUser` mails one link, not two; later calls always send. `actionCodeSettings.url` is where the link's
    /// page leads back to once the address is confirmed; a call with one always sends (the sign-up mail's link
    /// does not lead back anywhere).
    public func sendEmailVerification(with actionCodeSettings: ActionCodeSettings? = nil) async throws {
        try await authCall {
            try checkCurrent()
            let mailedAtSignUp = auth.signUpVerification.withLock { record -> Bool in
                defer { record = nil }
                guard let record, record.uid == uid else { return false }
                return ProcessInfo.processInfo.systemUptime - record.at < 600
            }
            if mailedAtSignUp && actionCodeSettings?.url == nil { return }
            var body: [String: KuraValue] = [:]
            if let url = actionCodeSettings?.continueURL { body["continueUrl"] = .string(url) }
            _ = try await call(APIRequest("POST", "/api/auth/verify-email", body: .map(body)))
        }
    }

    /// Changes the password. Needs a sign-in within the last 5 minutes (else `.credentialTooOldLoginAgain`);
    /// the user's other sessions are signed out, this one stays.
    public func updatePassword(to password: String) async throws {
        try await authCall {
            _ = try await call(APIRequest("PATCH", "/api/auth/me", body: ["password": .string(password)]))
        }
    }

    /// Sets (or with `nil` removes) the display name.
    public func updateDisplayName(_ name: String?) async throws {
        try await authCall {
            let response = try await call(
                APIRequest("PATCH", "/api/auth/me", body: ["displayName": name.map(KuraValue.string) ?? .null]))
            let fresh = try UserProfile(json: try response.object()["user"])
            auth.update { $0.profile = fresh }
        }
    }

    /// Deletes the account and signs out. Needs a recent sign-in, as in Firebase.
    public func delete() async throws {
        try await authCall {
            _ = try await call(APIRequest("DELETE", "/api/auth/me"))
            auth.forget(uid: uid)
        }
    }

    /// Checks that this user is still the signed-in one, so a stale `User` cannot act for another account.
    private func checkCurrent() throws {
        guard auth.sessionUID == uid else { throw KuraError.notSignedIn("this User is signed out; it") }
    }

    private func call(_ request: APIRequest) async throws -> APIResponse {
        try checkCurrent()
        guard let token = try await auth.validIDToken() else { throw KuraError.notSignedIn(request.path) }
        do {
            return try await auth.transport.send(request, token: token)
        } catch let error as KuraError where Auth.isTokenRejection(error) {
            guard let fresh = try await auth.refreshRejectedToken(token) else { throw error }
            return try await auth.transport.send(request, token: fresh)
        }
    }
}
