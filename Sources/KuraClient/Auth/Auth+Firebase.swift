import Foundation
internal import KuraModel

/// Firebase Auth's callback forms and the calls the seed apps use, beside the `async` ones. Completion handlers
/// run on `Kura.Settings.dispatchQueue` (the main queue by default), as Firebase's do.
extension Auth {
    /// `createUser(withEmail:password:)` with a completion handler: `(result, error)`.
    public func createUser(
        withEmail email: String, password: String, completion: ((AuthDataResult?, Error?) -> Void)?
    ) {
        runThenCall(on: callbackQueue, valueOrError(completion)) {
            try await self.createUser(withEmail: email, password: password)
        }
    }

    /// `signIn(withEmail:password:)` with a completion handler: `(result, error)`.
    public func signIn(withEmail email: String, password: String, completion: ((AuthDataResult?, Error?) -> Void)?) {
        runThenCall(on: callbackQueue, valueOrError(completion)) {
            try await self.signIn(withEmail: email, password: password)
        }
    }

    /// `sendPasswordReset(withEmail:)` with a completion handler.
    public func sendPasswordReset(withEmail email: String, completion: ((Error?) -> Void)?) {
        runThenCall(on: callbackQueue, errorOnly(completion)) { try await self.sendPasswordReset(withEmail: email) }
    }

    /// `sendPasswordReset(withEmail:actionCodeSettings:)` with a completion handler.
    public func sendPasswordReset(
        withEmail email: String, actionCodeSettings: ActionCodeSettings, completion: ((Error?) -> Void)?
    ) {
        runThenCall(on: callbackQueue, errorOnly(completion)) {
            try await self.sendPasswordReset(withEmail: email, actionCodeSettings: actionCodeSettings)
        }
    }

    // MARK: Action codes (the `code` of a verification or password-reset link)

    /// Confirms an email address with the code of a verification link (`POST /api/auth/verify-email/confirm`;
    /// also applies a pending address change). Throws `.invalidOOBCode` (unknown or used), `.expiredOOBCode`.
    /// A signed-in user's `isEmailVerified` changes after `reload()`.
    public func applyActionCode(_ code: String) async throws {
        try await authCall {
            _ = try await transport.send(
                APIRequest("POST", "/api/auth/verify-email/confirm", body: ["code": .string(code)]), token: nil)
        }
    }

    /// `applyActionCode(_:)` with a completion handler.
    public func applyActionCode(_ code: String, completion: ((Error?) -> Void)?) {
        runThenCall(on: callbackQueue, errorOnly(completion)) { try await self.applyActionCode(code) }
    }

    /// Sets a new password with the code of a password-reset link (`POST /api/auth/password-reset/confirm`); every
    /// session of the account is signed out. Throws `.weakPassword` (before the code is spent),
    /// `.invalidOOBCode`, `.expiredOOBCode`, `.userDisabled`.
    public func confirmPasswordReset(withCode code: String, newPassword: String) async throws {
        try await authCall {
            _ = try await transport.send(
                APIRequest(
                    "POST", "/api/auth/password-reset/confirm",
                    body: ["code": .string(code), "newPassword": .string(newPassword)]), token: nil)
        }
    }

    /// `confirmPasswordReset(withCode:newPassword:)` with a completion handler.
    public func confirmPasswordReset(withCode code: String, newPassword: String, completion: @escaping (Error?) -> Void)
    {
        runThenCall(on: callbackQueue, errorOnly(completion)) {
            try await self.confirmPasswordReset(withCode: code, newPassword: newPassword)
        }
    }

    /// What a code is for and the address it confirms, without spending it
    /// (`POST /api/auth/action-code/check`): to show "reset the password of ann@example.com" before asking for the
    /// new password. Throws `.invalidOOBCode` (unknown or used), `.expiredOOBCode`, `.userDisabled` (a reset code
    /// of a disabled account).
    public func checkActionCode(_ code: String) async throws -> ActionCodeInfo {
        try await authCall {
            let body = try await transport.send(
                APIRequest("POST", "/api/auth/action-code/check", body: ["code": .string(code)]), token: nil
            ).object()
            guard let email = body["email"]?.stringValue else {
                throw KuraError.invalidResponse("no email in the answer")
            }
            return ActionCodeInfo(
                operation: ActionCodeOperation(serverName: body["operation"]?.stringValue), email: email,
                previousEmail: body["previousEmail"]?.stringValue)
        }
    }

    /// `checkActionCode(_:)` with a completion handler: `(info, error)`.
    public func checkActionCode(_ code: String, completion: @escaping (ActionCodeInfo?, Error?) -> Void) {
        runThenCall(on: callbackQueue, valueOrError(completion)) { try await self.checkActionCode(code) }
    }

    /// The address whose password a reset code sets, without spending the code. Throws `.invalidOOBCode` also for
    /// a code of another kind (a verification code), `.expiredOOBCode`, `.userDisabled`.
    public func verifyPasswordResetCode(_ code: String) async throws -> String {
        try await authCall {
            let info = try await checkActionCode(code)
            guard info.operation == .passwordReset else {
                throw KuraError(.invalidOOBCode, "the code is not a password-reset code", status: 400)
            }
            return info.email
        }
    }

    /// `verifyPasswordResetCode(_:)` with a completion handler: `(email, error)`.
    public func verifyPasswordResetCode(_ code: String, completion: @escaping (String?, Error?) -> Void) {
        runThenCall(on: callbackQueue, valueOrError(completion)) { try await self.verifyPasswordResetCode(code) }
    }

    // MARK: Language of the mails

    /// The language of verification and password-reset mail (a BCP 47 tag such as `"ja"`), sent as
    /// `Accept-Language` with every request; `nil` (the default) sends none and the server mails in English.
    public var languageCode: String? {
        get { transport.acceptLanguage.current }
        set { transport.acceptLanguage.withLock { $0 = newValue } }
    }

    /// Sets `languageCode` to the app's preferred language (`Locale.preferredLanguages`).
    public func useAppLanguage() {
        languageCode = Locale.preferredLanguages.first ?? Locale.current.identifier
    }

    // MARK: State listeners

    /// Calls `listener` with the current user now and after every sign-in and sign-out (Firebase's
    /// `addStateDidChangeListener`), on the callback queue. Keep the handle to remove it.
    @discardableResult
    public func addStateDidChangeListener(_ listener: @escaping (Auth, User?) -> Void)
        -> AuthStateDidChangeListenerHandle
    {
        let box = CallbackBox(value: listener)
        let removed = Locked(false)
        let queue = callbackQueue
        let changes = authStateChanges
        let task = Task {
            for await user in changes {
                queue.async {
                    guard !removed.current else { return }
                    box.value(self, user)
                }
            }
        }
        return AuthStateDidChangeListenerHandle(task: task, removed: removed)
    }

    /// Stops a listener added with `addStateDidChangeListener`.
    public func removeStateDidChangeListener(_ handle: AuthStateDidChangeListenerHandle) { handle.remove() }
}

/// What `addStateDidChangeListener` returns, to remove the listener.
public final class AuthStateDidChangeListenerHandle: Sendable {
    private let task: Task<Void, Never>
    private let removed: Locked<Bool>

    init(task: Task<Void, Never>, removed: Locked<Bool>) {
        self.task = task
        self.removed = removed
    }

    func remove() {
        removed.withLock { $0 = true }
        task.cancel()
    }
}

extension User {
    /// `reload()` with a completion handler; read `currentUser` again inside it, as in Firebase.
    public func reload(completion: ((Error?) -> Void)?) {
        runThenCall(on: auth.callbackQueue, errorOnly(completion)) { _ = try await self.reload() }
    }

    /// `sendEmailVerification()` with a completion handler.
    public func sendEmailVerification(completion: ((Error?) -> Void)?) {
        runThenCall(on: auth.callbackQueue, errorOnly(completion)) { try await self.sendEmailVerification() }
    }

    /// `sendEmailVerification(with:)` with a completion handler.
    public func sendEmailVerification(with actionCodeSettings: ActionCodeSettings, completion: ((Error?) -> Void)?) {
        runThenCall(on: auth.callbackQueue, errorOnly(completion)) {
            try await self.sendEmailVerification(with: actionCodeSettings)
        }
    }

    /// `updatePassword(to:)` with a completion handler.
    public func updatePassword(to password: String, completion: ((Error?) -> Void)?) {
        runThenCall(on: auth.callbackQueue, errorOnly(completion)) { try await self.updatePassword(to: password) }
    }

    /// `delete()` with a completion handler.
    public func delete(completion: ((Error?) -> Void)?) {
        runThenCall(on: auth.callbackQueue, errorOnly(completion)) { try await self.delete() }
    }

    /// `getIDToken(forcingRefresh:)` with a completion handler.
    public func getIDTokenForcingRefresh(_ forceRefresh: Bool, completion: ((String?, Error?) -> Void)?) {
        runThenCall(on: auth.callbackQueue, valueOrError(completion)) {
            try await self.getIDToken(forcingRefresh: forceRefresh)
        }
    }
}
