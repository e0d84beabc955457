import Foundation
internal import KuraModel

/// Accounts, with Firebase Auth's shapes: `createUser(withEmail:password:)`, `signIn`, `signOut`, `currentUser`,
/// `authStateChanges`. The session persists (`Kura.Settings.session`) and its ID token is refreshed before it
/// expires, so `currentUser` stays signed in across launches until `signOut()` or the server revokes it.
public final class Auth: Sendable {
    let transport: Transport
    let storage: any SessionStorage
    private let state: Locked<State>

    private struct State {
        var session: StoredSession?
        /// Bumped by every sign-in and sign-out, so a refresh that finishes afterwards does not bring back the
        /// session it started from.
        var generation = 0
        var refreshing: (generation: Int, task: Task<StoredSession, any Error>)?
        var observers: [UUID: AsyncStream<User?>.Continuation] = [:]
    }

    /// Where completion handlers and `addStateDidChangeListener` callbacks run (`Kura.Settings.dispatchQueue`).
    let callbackQueue: DispatchQueue
    /// The uid whose sign-up, at the time given, already mailed a verification link (see
    /// `User.sendEmailVerification()`).
    /// The account whose sign-up mailed a verification, and when (`ProcessInfo.systemUptime`, monotonic).
    let signUpVerification = Locked<(uid: String, at: TimeInterval)?>(nil)

    init(transport: Transport, storage: any SessionStorage, callbackQueue: DispatchQueue = .main) {
        self.transport = transport
        self.storage = storage
        self.callbackQueue = callbackQueue
        state = Locked(State(session: storage.load()))
    }

    /// The signed-in user, or `nil`.
    public var currentUser: User? { state.withLock { $0.session.map { User(profile: $0.profile, auth: self) } } }

    /// The signed-in user now and after every change: sign-in, sign-out (also when the server revokes the
    /// session), and profile changes seen by `reload()`. Ends when the consuming task is cancelled.
    public var authStateChanges: AsyncStream<User?> {
        AsyncStream { continuation in
            let id = UUID()
            let user = state.withLock { state -> User? in
                state.observers[id] = continuation
                return state.session.map { User(profile: $0.profile, auth: self) }
            }
            continuation.yield(user)
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
            }
        }
    }

    // MARK: Signing in and out

    /// Creates an account and signs in as it (`POST /api/auth/signup`). When the server requires verified
    /// addresses (`auth.requireVerifiedEmail`) the account is created but nobody is signed in
    /// (`AuthDataResult.isSignedIn` is false): the user follows the mailed link, then `signIn`s. Throws
    /// `.emailExists`, `.invalidEmail`, `.weakPassword`…
    @discardableResult
    public func createUser(withEmail email: String, password: String) async throws -> AuthDataResult {
        try await authCall {
            let response = try await transport.send(
                APIRequest("POST", "/api/auth/signup", body: ["email": .string(email), "password": .string(password)]),
                token: nil)
            let body = try response.object()
            let mailed = body["verificationSent"]?.boolValue == true
            guard body["idToken"] != nil else {
                return AuthDataResult(
                    user: User(profile: try UserProfile(json: body["user"]), auth: self), isSignedIn: false)
            }
            let session = try Self.session(from: response)
            signUpVerification.withLock {
                $0 = mailed ? (session.profile.uid, ProcessInfo.processInfo.systemUptime) : nil
            }
            return signIn(session)
        }
    }

    /// Mails another verification link to `email`, for an account that cannot sign in before verifying
    /// (`POST /api/auth/verify-email` by address). Succeeds for unknown and already verified addresses too.
    public func sendEmailVerification(toEmail email: String, actionCodeSettings: ActionCodeSettings? = nil)
        async throws
    {
        try await authCall {
            var body: [String: KuraValue] = ["email": .string(email)]
            if let url = actionCodeSettings?.continueURL { body["continueUrl"] = .string(url) }
            _ = try await transport.send(APIRequest("POST", "/api/auth/verify-email", body: .map(body)), token: nil)
        }
    }

    /// Signs in (`POST /api/auth/signin`). Throws `.invalidLoginCredentials` for an unknown address or a wrong
    /// password alike, `.userDisabled`, `.emailNotVerified` (when the server requires verified addresses).
    @discardableResult
    public func signIn(withEmail email: String, password: String) async throws -> AuthDataResult {
        try await authCall {
            try await signIn(
                APIRequest("POST", "/api/auth/signin", body: ["email": .string(email), "password": .string(password)]))
        }
    }

    /// Revokes the session on the server and forgets it here. The local session is cleared even when the server
    /// cannot be reached; the error is still thrown, since the refresh token then stays valid on the server.
    public func signOut() async throws {
        try await authCall {
            let session = state.current.session
            install(nil)
            guard let session else { return }
            try await revoke(session)
        }
    }

    /// Firebase's synchronous `try Auth.auth().signOut()`: forgets the session here at once (`currentUser` is `nil`
    /// when it returns, listeners restart signed out) and revokes it on the server in the background. Declared
    /// `throws` so Firebase code compiles as it is; it does not fail. In `async` code, `try await signOut()` also
    /// reports a failure to reach the server.
    public func signOut() throws {
        let session = state.current.session
        install(nil)
        guard let session else { return }
        Task { try? await self.revoke(session) }
    }

    /// Revokes `session` on the server (`POST /api/auth/signout`).
    private func revoke(_ session: StoredSession) async throws {
        var token = session.idToken
        if session.expiresAt < Date() {
            // An expired ID token cannot authenticate the sign-out; one refresh gets a token for it.
            token = try await refreshedToken(session.refreshToken)
        }
        _ = try await transport.send(APIRequest("POST", "/api/auth/signout", body: [:]), token: token)
    }

    /// Mails a password-reset link (`POST /api/auth/password-reset`). Succeeds for unknown addresses too: the
    /// server does not reveal which addresses have accounts. `actionCodeSettings.url` is where the link's page leads
    /// back to once the password is changed (`.invalidContinueURI`, `.unauthorizedDomain` when the server refuses it).
    public func sendPasswordReset(withEmail email: String, actionCodeSettings: ActionCodeSettings? = nil)
        async throws
    {
        try await authCall {
            var body: [String: KuraValue] = ["email": .string(email)]
            if let url = actionCodeSettings?.continueURL { body["continueUrl"] = .string(url) }
            _ = try await transport.send(APIRequest("POST", "/api/auth/password-reset", body: .map(body)), token: nil)
        }
    }

    private func signIn(_ request: APIRequest) async throws -> AuthDataResult {
        signIn(try Self.session(from: try await transport.send(request, token: nil)))
    }

    private func signIn(_ session: StoredSession) -> AuthDataResult {
        install(session)
        return AuthDataResult(user: User(profile: session.profile, auth: self), isSignedIn: true)
    }

    static func session(from response: APIResponse) throws -> StoredSession {
        let body = try response.object()
        guard let idToken = body["idToken"]?.stringValue, let refreshToken = body["refreshToken"]?.stringValue else {
            throw KuraError.invalidResponse("no tokens in the answer")
        }
        let lifetime = body["expiresIn"]?.doubleValue ?? 3600
        // The token's `iat`/`exp` are whole seconds, so it may have been issued up to a second before the answer
        // says; counting a second less keeps the SDK from presenting a token the server just let expire.
        return StoredSession(
            profile: try UserProfile(json: body["user"]), idToken: idToken, refreshToken: refreshToken,
            expiresAt: Date().addingTimeInterval(lifetime > 2 ? lifetime - 1 : lifetime), lifetime: lifetime)
    }

    // MARK: Session state

    /// Replaces the session (a sign-in, or `nil` for a sign-out), persists it and tells observers.
    private func install(_ session: StoredSession?) {
        let observers = state.withLock { state -> [AsyncStream<User?>.Continuation] in
            state.session = session
            state.generation += 1
            state.refreshing = nil
            return Array(state.observers.values)
        }
        try? storage.save(session)
        let user = session.map { User(profile: $0.profile, auth: self) }
        for observer in observers { observer.yield(user) }
    }

    /// Updates the session if it still belongs to `generation`; tells observers when the profile changed.
    @discardableResult
    func update(generation: Int? = nil, _ change: (inout StoredSession) -> Void) -> StoredSession? {
        let (session, changed, observers) = state.withLock {
            state -> (StoredSession?, Bool, [AsyncStream<User?>.Continuation]) in
            guard var session = state.session, generation == nil || generation == state.generation else {
                return (nil, false, [])
            }
            let before = session.profile
            change(&session)
            state.session = session
            return (session, before != session.profile, Array(state.observers.values))
        }
        if let session { try? storage.save(session) }
        if changed, let session {
            let user = User(profile: session.profile, auth: self)
            for observer in observers { observer.yield(user) }
        }
        return session
    }

    /// Forgets the session (after the server revoked it or deleted the account) if it is still `uid`'s.
    func forget(uid: String) {
        if state.current.session?.profile.uid == uid { install(nil) }
    }

    var sessionUID: String? { state.current.session?.profile.uid }

    // MARK: ID tokens

    /// Sends `request` as the signed-in user (anonymously when signed out). An ID token the server rejects as
    /// expired or revoked is refreshed once and the request repeated.
    func call(_ request: APIRequest) async throws -> APIResponse {
        let token = try await validIDToken()
        do {
            return try await transport.send(request, token: token)
        } catch let error as KuraError where token != nil && Self.isTokenRejection(error) {
            guard let fresh = try await refreshRejectedToken(token!) else { throw error }
            return try await transport.send(request, token: fresh)
        }
    }

    /// Whether the server refused the ID token itself (expired, revoked), as opposed to the request.
    static func isTokenRejection(_ error: KuraError) -> Bool {
        [.unauthenticated, .invalidIDToken, .tokenExpired].contains(error.code)
    }

    /// An ID token that is not about to expire, refreshed if needed; `nil` when signed out.
    func validIDToken() async throws -> String? {
        guard let session = state.current.session else { return nil }
        if !session.needsRefresh { return session.idToken }
        return try await refresh().idToken
    }

    /// An ID token for a listen stream, which the server ends when that token expires: refreshed first when half
    /// its lifetime is gone, so a stream is not opened only to be cut off before its listeners have heard from the
    /// server; `nil` when signed out.
    func streamIDToken() async throws -> String? {
        guard let session = state.current.session else { return nil }
        if !session.isPastHalfLife { return session.idToken }
        return try await refresh().idToken
    }

    /// After the server rejected `token`: a newer token if there is one, else a refreshed one; `nil` when signed
    /// out meanwhile.
    func refreshRejectedToken(_ token: String) async throws -> String? {
        guard let session = state.current.session else { return nil }
        if session.idToken != token { return session.idToken }
        return try await refresh().idToken
    }

    /// Refreshes the session's tokens. Concurrent callers share one refresh: a refresh token is single-use, and
    /// presenting a spent one makes the server revoke the whole session.
    func refresh() async throws -> StoredSession {
        let task = try state.withLock { state -> Task<StoredSession, any Error> in
            if let refreshing = state.refreshing, refreshing.generation == state.generation { return refreshing.task }
            guard let session = state.session else { throw KuraError.notSignedIn("refreshing the ID token") }
            let generation = state.generation
            let task = Task { try await self.performRefresh(session, generation: generation) }
            state.refreshing = (generation, task)
            return task
        }
        return try await task.value
    }

    private func performRefresh(_ stale: StoredSession, generation: Int) async throws -> StoredSession {
        defer {
            state.withLock { state in
                if state.refreshing?.generation == generation { state.refreshing = nil }
            }
        }
        var current = stale
        // Another process sharing the session file may have refreshed already; its refresh token is the live one.
        if let stored = storage.load(), stored.profile.uid == stale.profile.uid,
            stored.refreshToken != stale.refreshToken
        {
            current = stored
            if !stored.needsRefresh {
                return update(generation: generation) { $0 = stored } ?? stored
            }
        }
        let response: APIResponse
        do {
            response = try await transport.send(
                APIRequest("POST", "/api/auth/refresh", body: ["refreshToken": .string(current.refreshToken)]),
                token: nil)
        } catch let error as KuraError where !error.isNetworkFailure && error.code != .tooManyAttemptsTryLater {
            // The session is over (revoked, account disabled or deleted): sign out here too.
            if state.current.generation == generation { install(nil) }
            throw error
        }
        let fresh = try Self.session(from: response)
        return update(generation: generation) { $0 = fresh } ?? fresh
    }

    /// A one-off refresh for `signOut` of a session that is no longer installed.
    private func refreshedToken(_ refreshToken: String) async throws -> String {
        let response = try await transport.send(
            APIRequest("POST", "/api/auth/refresh", body: ["refreshToken": .string(refreshToken)]), token: nil)
        return try Self.session(from: response).idToken
    }
}

/// What `createUser` and `signIn` return, as in Firebase.
public struct AuthDataResult: Sendable {
    /// The signed-in user (or, when `isSignedIn` is false, the account just created).
    public let user: User
    /// False after `createUser` on a server that requires a verified address before any session.
    public let isSignedIn: Bool
}
