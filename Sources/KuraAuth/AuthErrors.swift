import KuraCore

/// The Firebase Auth error codes this module throws.
extension KuraError {
    static func auth(_ code: String, _ status: Int, _ message: String) -> KuraError {
        KuraError(code: code, status: status, message: message)
    }
    /// 400 `EMAIL_EXISTS`: what every `AccountStore` throws for a second account with the same address.
    public static let emailExists = auth("EMAIL_EXISTS", 400, "the email address is already in use by another account")
    static func invalidEmail(_ reason: String) -> KuraError { auth("INVALID_EMAIL", 400, reason) }
    static func weakPassword(_ minimum: Int) -> KuraError {
        auth("WEAK_PASSWORD", 400, "the password must be at least \(minimum) characters long")
    }
    static let missingPassword = auth("MISSING_PASSWORD", 400, "a password is required")
    static let invalidLoginCredentials = auth("INVALID_LOGIN_CREDENTIALS", 400, "wrong email or password")
    static let emailNotVerified = auth("EMAIL_NOT_VERIFIED", 403, "the email address has not been verified")
    static let userDisabled = auth("USER_DISABLED", 403, "the account has been disabled")
    static let invalidOOBCode = auth("INVALID_OOB_CODE", 400, "the action code is invalid or was already used")
    static let expiredOOBCode = auth("EXPIRED_OOB_CODE", 400, "the action code has expired")
    static func invalidIDToken(_ reason: String = "the ID token is invalid") -> KuraError {
        auth("INVALID_ID_TOKEN", 401, reason)
    }
    static let tokenExpired = auth("TOKEN_EXPIRED", 401, "the ID token has expired")
    static let credentialTooOld = auth(
        "CREDENTIAL_TOO_OLD_LOGIN_AGAIN", 401, "this operation needs a recent sign-in; sign in again")
    static let userNotFound = auth("USER_NOT_FOUND", 404, "no user with that id")
    static let invalidRefreshToken = auth("INVALID_REFRESH_TOKEN", 400, "the refresh token is invalid or revoked")

    /// 429 with `Retry-After` (whole seconds, at least 1).
    static func tooManyAttempts(retryAfter: Int) -> KuraError {
        KuraError(
            code: "TOO_MANY_ATTEMPTS_TRY_LATER", status: 429, message: "too many attempts; try again later",
            headers: [("Retry-After", String(retryAfter))])
    }

    /// 429 with `Retry-After` rounded up from `seconds`.
    static func tooManyAttempts(seconds: Double) -> KuraError {
        tooManyAttempts(retryAfter: max(1, Int(seconds.rounded(.up))))
    }
}
