import KuraCore
import KuraModel

/// The Firebase Auth error codes this module throws.
extension APIError {
    static func auth(_ code: ErrorCode, _ status: Int, _ message: String) -> APIError {
        APIError(code, status: status, message: message)
    }
    /// 400 `EMAIL_EXISTS`: what every `AccountStore` throws for a second account with the same address.
    public static let emailExists = auth(.emailExists, 400, "the email address is already in use by another account")
    static func invalidEmail(_ reason: String) -> APIError { auth(.invalidEmail, 400, reason) }
    static func weakPassword(_ minimum: Int) -> APIError {
        auth(.weakPassword, 400, "the password must be at least \(minimum) characters long")
    }
    static let missingPassword = auth(.missingPassword, 400, "a password is required")
    static let invalidLoginCredentials = auth(.invalidLoginCredentials, 400, "wrong email or password")
    static let emailNotVerified = auth(.emailNotVerified, 403, "the email address has not been verified")
    static let userDisabled = auth(.userDisabled, 403, "the account has been disabled")
    static let invalidOOBCode = auth(.invalidOOBCode, 400, "the action code is invalid or was already used")
    static let expiredOOBCode = auth(.expiredOOBCode, 400, "the action code has expired")
    static func invalidIDToken(_ reason: String = "the ID token is invalid") -> APIError {
        auth(.invalidIDToken, 401, reason)
    }
    static let tokenExpired = auth(.tokenExpired, 401, "the ID token has expired")
    static let credentialTooOld = auth(
        .credentialTooOldLoginAgain, 401, "this operation needs a recent sign-in; sign in again")
    static let userNotFound = auth(.userNotFound, 404, "no user with that id")
    static let invalidRefreshToken = auth(.invalidRefreshToken, 400, "the refresh token is invalid or revoked")

    /// 429 with `Retry-After` (whole seconds, at least 1).
    static func tooManyAttempts(retryAfter: Int) -> APIError {
        APIError(
            .tooManyAttemptsTryLater, status: 429, message: "too many attempts; try again later",
            headers: [("Retry-After", String(retryAfter))])
    }

    /// 429 with `Retry-After` rounded up from `seconds`.
    static func tooManyAttempts(seconds: Double) -> APIError {
        tooManyAttempts(retryAfter: max(1, Int(seconds.rounded(.up))))
    }
}
