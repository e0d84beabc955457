import KuraCore
import KuraModel

/// The signed-in user's own account, email verification and password reset.
extension AuthService {
    /// The caller's account. Throws `INVALID_ID_TOKEN` when it no longer exists.
    public func currentUser(_ claims: AuthClaims) throws -> AuthUser {
        AuthUser(try liveAccount(claims))
    }

    /// Changes the caller's display name, password and/or email. Password and email changes need a sign-in within
    /// `recentLoginWindow` (`CREDENTIAL_TOO_OLD_LOGIN_AGAIN`). A password change signs out every *other* session;
    /// an email change is only prepared: the returned code, mailed to the new address, applies it via
    /// `confirmEmailChange(code:)`. Also `INVALID_EMAIL`, `EMAIL_EXISTS`, `WEAK_PASSWORD`, `MISSING_PASSWORD`.
    public func updateProfile(_ claims: AuthClaims, _ update: ProfileUpdate) throws -> ProfileUpdateResult {
        var account = try liveAccount(claims)
        if update.password != nil || update.email != nil { try requireRecentLogin(claims) }
        if let password = update.password { try validateNewPassword(password) }
        let newAddress = try update.email.map(EmailAddress.init)
        if let newAddress, newAddress.key != account.emailKey, try store.account(emailKey: newAddress.key) != nil {
            throw APIError.emailExists
        }
        if let displayName = update.displayName {
            try validateDisplayName(displayName)
            account.displayName = displayName
        }
        if let password = update.password { account.passwordHash = try hasher.hash(password) }
        try store.updateAccount(account)
        if update.password != nil {
            try store.revokeSessions(uid: account.uid, except: claims.sessionID)
            // Every other session; this one keeps its access (its claims did not change).
            revoke(Revocation(uid: account.uid, keptSessionID: claims.sessionID))
        } else if update.displayName != nil {
            // Other nodes' account caches must forget the old name; tokens grant what they did.
            changeObservers.announce(.accountChanged(uid: account.uid))
        }
        var result = ProfileUpdateResult(user: AuthUser(account))
        if let newAddress, newAddress.value != account.email {
            result.emailChangeCode = try makeActionCode(.changeEmail, uid: account.uid, email: newAddress.value)
            result.pendingEmail = newAddress.value
        }
        return result
    }

    /// Deletes the caller's account and sessions; needs a recent sign-in (`CREDENTIAL_TOO_OLD_LOGIN_AGAIN`), as in
    /// Firebase.
    public func deleteAccount(_ claims: AuthClaims) throws {
        try requireRecentLogin(claims)
        _ = try liveAccount(claims)
        try store.deleteAccount(uid: claims.uid)
        revoke(Revocation(uid: claims.uid))
    }

    /// A new email-verification code for the caller's current address (to mail to `currentUser(_:).email`).
    public func sendEmailVerification(_ claims: AuthClaims) throws -> String {
        let account = try liveAccount(claims)
        return try makeActionCode(.verifyEmail, uid: account.uid, email: account.email)
    }

    /// Applies an email-verification code. Throws `INVALID_OOB_CODE` (unknown, used, other kind, or the address
    /// changed since), `EXPIRED_OOB_CODE`.
    public func confirmEmailVerification(code: String) throws -> AuthUser {
        let record = try consumeActionCode(code, kind: .verifyEmail)
        guard var account = try store.account(uid: record.uid), account.email == record.email else {
            throw APIError.invalidOOBCode
        }
        account.emailVerified = true
        try store.updateAccount(account)
        // Access only grows: cached verifications take the new `email_verified`, streams stay.
        accountChanged(uid: account.uid)
        return AuthUser(account)
    }

    /// Applies an email-change code: the account takes the new address, verified. Sessions stay; new ID tokens carry
    /// the new address. Throws `INVALID_OOB_CODE`, `EXPIRED_OOB_CODE`, `EMAIL_EXISTS`.
    public func confirmEmailChange(code: String) throws -> AuthUser {
        let record = try consumeActionCode(code, kind: .changeEmail)
        guard var account = try store.account(uid: record.uid) else { throw APIError.invalidOOBCode }
        let address = try EmailAddress(record.email)
        account.email = address.value
        account.emailKey = address.key
        account.emailVerified = true
        try store.updateAccount(account)
        // The `email` claim changed, and rules may grant by it.
        revoke(Revocation(uid: account.uid))
        return AuthUser(account)
    }

    /// A password-reset code for `email`, or `nil` when no enabled account has that address (the route answers
    /// 200 either way, so addresses cannot be probed). Throws `INVALID_EMAIL`.
    public func requestPasswordReset(email: String) throws -> String? {
        try passwordResetMail(email: email)?.code
    }

    /// Like `requestPasswordReset(email:)`, with the address to mail it to: the account's own, however the
    /// request spelled it (case, surrounding spaces).
    public func passwordResetMail(email: String) throws -> (code: String, email: String)? {
        let address = try EmailAddress(email)
        guard let account = try store.account(emailKey: address.key), !account.disabled else { return nil }
        return (try makeActionCode(.passwordReset, uid: account.uid, email: account.email), account.email)
    }

    /// An email-verification code for the account with address `email`, with the address to mail it to, or `nil`
    /// when no enabled, unverified account has it: the resend for someone who cannot sign in before verifying
    /// (`requireVerifiedEmail`). The route answers the same either way. Throws `INVALID_EMAIL`.
    public func verificationMail(email: String) throws -> (code: String, email: String)? {
        let address = try EmailAddress(email)
        guard let account = try store.account(emailKey: address.key), !account.disabled, !account.emailVerified else {
            return nil
        }
        return (try makeActionCode(.verifyEmail, uid: account.uid, email: account.email), account.email)
    }

    /// Sets a new password with a reset code, marks the address verified (the code proved it) and revokes every
    /// session. Throws `WEAK_PASSWORD`, `MISSING_PASSWORD` (checked before the code is spent), `INVALID_OOB_CODE`,
    /// `EXPIRED_OOB_CODE`, `USER_DISABLED`.
    @discardableResult
    public func confirmPasswordReset(code: String, newPassword: String) throws -> AuthUser {
        try validateNewPassword(newPassword)
        let record = try consumeActionCode(code, kind: .passwordReset)
        guard var account = try store.account(uid: record.uid), account.email == record.email else {
            throw APIError.invalidOOBCode
        }
        guard !account.disabled else { throw APIError.userDisabled }
        account.passwordHash = try hasher.hash(newPassword)
        account.emailVerified = true
        try store.updateAccount(account)
        try store.revokeSessions(uid: account.uid, except: nil)
        revoke(Revocation(uid: account.uid))
        return AuthUser(account)
    }

    /// What an action code is for and the address it confirms, without spending it (Firebase's `checkActionCode`):
    /// a code that this would accept is one its confirm call accepts. Throws `INVALID_OOB_CODE` (unknown, used, or
    /// the account or its address changed since), `EXPIRED_OOB_CODE`, and `USER_DISABLED` for the reset code of a
    /// disabled account, as the confirm calls do.
    public func checkActionCode(code: String) throws -> ActionCodeDetails {
        guard !code.isEmpty, code.utf8.count <= 256,
            let record = try store.unusedActionCode(hash: Sodium.sha256(code))
        else { throw APIError.invalidOOBCode }
        guard record.expireTime > nowSeconds() else { throw APIError.expiredOOBCode }
        guard let account = try store.account(uid: record.uid) else { throw APIError.invalidOOBCode }
        switch record.kind {
        case .verifyEmail, .passwordReset:
            guard account.email == record.email else { throw APIError.invalidOOBCode }
            if record.kind == .passwordReset, account.disabled { throw APIError.userDisabled }
            return ActionCodeDetails(kind: record.kind, email: record.email)
        case .changeEmail:
            return ActionCodeDetails(kind: record.kind, email: record.email, previousEmail: account.email)
        }
    }

    private func liveAccount(_ claims: AuthClaims) throws -> AccountRecord {
        guard let account = try store.account(uid: claims.uid) else {
            throw APIError.invalidIDToken("the account no longer exists")
        }
        guard !account.disabled else { throw APIError.userDisabled }
        return account
    }
}

/// What `AuthService.checkActionCode(code:)` finds about a valid code.
public struct ActionCodeDetails: Sendable, Equatable {
    public var kind: ActionCodeKind
    /// The address the code confirms: the account's, or the new one for `.changeEmail`.
    public var email: String
    /// For `.changeEmail`, the account's address now, which the code replaces.
    public var previousEmail: String?

    public init(kind: ActionCodeKind, email: String, previousEmail: String? = nil) {
        self.kind = kind
        self.email = email
        self.previousEmail = previousEmail
    }
}
