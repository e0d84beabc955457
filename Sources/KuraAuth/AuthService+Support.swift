import KuraCore
import KuraModel

extension AuthService {
    func nowMicros() -> Int64 { Int64(clock.now() * 1_000_000) }
    func nowSeconds() -> Int64 { Int64(clock.now()) }

    /// Throws `MISSING_PASSWORD`, `WEAK_PASSWORD` (too short) or `INVALID_ARGUMENT` (over `maxPasswordBytes`).
    func validateNewPassword(_ password: String) throws {
        guard !password.isEmpty else { throw APIError.missingPassword }
        guard password.count >= configuration.minPasswordLength else {
            throw APIError.weakPassword(configuration.minPasswordLength)
        }
        guard password.utf8.count <= configuration.maxPasswordBytes else {
            throw APIError.badRequest("the password is longer than \(configuration.maxPasswordBytes) bytes")
        }
    }

    /// Throws `INVALID_ARGUMENT` for display names over 256 characters or with control characters.
    func validateDisplayName(_ name: String?) throws {
        guard let name else { return }
        guard name.count <= 256, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw APIError.badRequest("the display name must be at most 256 characters, without control characters")
        }
    }

    func insertAccount(
        address: EmailAddress, password: String, displayName: String?, emailVerified: Bool, customClaims: JSONObject,
        uid: String? = nil, disabled: Bool = false
    ) throws -> AccountRecord {
        try validateDisplayName(displayName)
        // Checked first so a taken address costs no hashing; the UNIQUE index decides races.
        if try store.account(emailKey: address.key) != nil { throw APIError.emailExists }
        let account = AccountRecord(
            uid: uid ?? SecureRandom.base62(28), email: address.value, emailKey: address.key,
            emailVerified: emailVerified, displayName: displayName, passwordHash: try hasher.hash(password),
            disabled: disabled,
            customClaims: customClaims, createTime: nowMicros(), lastSignInTime: nil)
        try store.insertAccount(account)
        return account
    }

    /// A new session (refresh-token family) with `auth_time` now, and its first tokens.
    func startSession(for account: AccountRecord) throws -> AuthResult {
        let refreshToken = Base64.encode(SecureRandom.bytes(32), .urlSafe)
        let session = SessionRecord(
            id: SecureRandom.base62(22), uid: account.uid, generation: 0, authTime: nowSeconds(),
            createTime: nowMicros(), revoked: false)
        try store.insertSession(session, refreshTokenHash: Sodium.sha256(refreshToken))
        return AuthResult(
            user: AuthUser(account), idToken: issueIDToken(account: account, session: session),
            refreshToken: refreshToken, expiresIn: configuration.idTokenLifetime)
    }

    func issueIDToken(account: AccountRecord, session: SessionRecord) -> String {
        let now = nowSeconds()
        let claims = AuthClaims(
            uid: account.uid, email: account.email, emailVerified: account.emailVerified, issuedAt: now,
            expiresAt: now + configuration.idTokenLifetime, authTime: session.authTime, sessionID: session.id,
            customClaims: account.customClaims)
        return IDToken.encode(
            claims, issuer: configuration.issuer, audience: configuration.audience, key: keys.active,
            firebase: configuration.firebaseClaims)
    }

    /// Stores a new single-use code of `kind` (by hash) and returns the code itself, 32 random bytes in base64url.
    func makeActionCode(_ kind: ActionCodeKind, uid: String, email: String) throws -> String {
        let code = Base64.encode(SecureRandom.bytes(32), .urlSafe)
        let lifetime =
            kind == .passwordReset ? configuration.passwordResetCodeLifetime : configuration.verificationCodeLifetime
        try store.insertActionCode(
            ActionCodeRecord(
                hash: Sodium.sha256(code), kind: kind, uid: uid, email: email, expireTime: nowSeconds() + lifetime))
        return code
    }

    /// Consumes `code` of `kind`. Throws `INVALID_OOB_CODE`, `EXPIRED_OOB_CODE`.
    func consumeActionCode(_ code: String, kind: ActionCodeKind) throws -> ActionCodeRecord {
        guard !code.isEmpty, code.utf8.count <= 256 else { throw APIError.invalidOOBCode }
        switch try store.consumeActionCode(hash: Sodium.sha256(code), kind: kind, now: nowSeconds()) {
        case .consumed(let record): return record
        case .expired: throw APIError.expiredOOBCode
        case .invalid: throw APIError.invalidOOBCode
        }
    }

    /// Throws `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` unless the password was typed within `recentLoginWindow`.
    func requireRecentLogin(_ claims: AuthClaims) throws {
        guard nowSeconds() - claims.authTime <= configuration.recentLoginWindow else {
            throw APIError.credentialTooOld
        }
    }
}
