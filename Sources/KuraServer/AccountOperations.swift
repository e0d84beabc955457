import KuraAuth
import KuraCore
import KuraHTTP
import KuraModel

/// The account operations that both auth APIs, Kura's own (`AuthRoutes`) and Firebase's (`FirebaseAuthRoutes`),
/// run the same way: the same rate limits and sign-in throttle, the same mails. The routes only read their wire
/// format and call these. Blocking (argon2id, the account database): call them on the worker pool;
/// `mailByAddress` does no blocking work itself and may run anywhere.
struct AccountOperations: Sendable {
    let auth: AuthService
    let mailer: AccountMailer
    let addressMails: AddressMailRequests

    /// Creates an account (rate-limited per address and account) and mails the verification link when sign-up
    /// makes one. Returns the result and whether a link was mailed.
    func signUp(email: String, password: String, displayName: String?, request: Request) throws -> (
        result: AuthResult, verificationSent: Bool
    ) {
        try auth.checkRateLimit(.signUp, ip: request.remoteAddress, email: email)
        let result = try auth.signUp(email: email, password: password, displayName: displayName)
        guard let code = result.verificationCode else { return (result, false) }
        try mailer.verification(to: result.user.email, code: code, request: request)
        return (result, true)
    }

    /// Signs in behind the sign-in throttle, counting a failure against the client address and the account.
    func signIn(email: String, password: String, request: Request) throws -> AuthResult {
        try auth.checkSignInThrottle(ip: request.remoteAddress, email: email)
        do {
            return try auth.signIn(email: email, password: password)
        } catch let error as APIError where error.code == .invalidLoginCredentials {
            auth.recordFailedSignIn(ip: request.remoteAddress, email: email)
            throw error
        }
    }

    /// Exchanges a refresh token, rate-limited per client address.
    func refresh(refreshToken: String, request: Request) throws -> AuthResult {
        try auth.checkRateLimit(.refresh, ip: request.remoteAddress, email: nil)
        return try auth.refresh(refreshToken: refreshToken)
    }

    /// A new verification mail to the signed-in user's address (rate-limited); returns the address. Throws
    /// `INVALID_CONTINUE_URI`, `UNAUTHORIZED_DOMAIN` for a `continueURL` the server does not allow.
    @discardableResult
    func sendVerification(_ claims: AuthClaims, continueURL: String? = nil, request: Request) throws -> String {
        let continueURL = try continueURL.map { try mailer.continueURLs.check($0) }
        try auth.checkRateLimit(.verifyEmail, ip: request.remoteAddress, email: claims.email)
        let code = try auth.sendEmailVerification(claims)
        try mailer.verification(to: claims.email, code: code, request: request, continueURL: continueURL)
        return claims.email
    }

    /// The signed-in user's profile change; a new address gets its confirmation mail.
    func updateProfile(_ claims: AuthClaims, _ update: ProfileUpdate, request: Request) throws -> ProfileUpdateResult {
        let result = try auth.updateProfile(claims, update)
        if let code = result.emailChangeCode, let pending = result.pendingEmail {
            try mailer.emailChange(to: pending, code: code, request: request)
        }
        return result
    }

    /// A verification code confirms either a new account's address or a pending address change.
    func confirmEmail(code: String) throws -> AuthUser {
        do {
            return try auth.confirmEmailVerification(code: code)
        } catch let error as APIError where error.code == .invalidOOBCode {
            return try auth.confirmEmailChange(code: code)
        }
    }

    /// A mail asked for by address alone (password reset, or verification for an account that cannot sign in
    /// yet): input and rate limits here, on the loop; the lookup, the code and the mail on the worker pool after
    /// the answer (`AddressMailRequests`), so that neither the answer nor its timing tells which addresses have
    /// accounts. Throws `INVALID_EMAIL`, `INVALID_CONTINUE_URI`, `UNAUTHORIZED_DOMAIN`,
    /// `TOO_MANY_ATTEMPTS_TRY_LATER`.
    func mailByAddress(
        _ kind: AddressMailRequests.Kind, _ endpoint: AuthEndpoint, email: String, continueURL: String? = nil,
        request: Request, environment: RequestEnvironment
    ) throws {
        _ = try EmailAddress(email)
        let continueURL = try continueURL.map { try mailer.continueURLs.check($0) }
        try auth.checkRateLimit(endpoint, ip: request.remoteAddress, email: email)
        try addressMails.submit(
            kind, email: email, continueURL: continueURL, request: request, environment: environment)
    }
}
