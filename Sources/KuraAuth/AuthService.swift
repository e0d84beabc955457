import KuraCore

/// Endpoint classes for rate limiting; the raw value prefixes the limiter keys.
public enum AuthEndpoint: String, Sendable {
    case signUp = "signup"
    case signIn = "signin"
    case refresh = "refresh"
    case passwordReset = "password-reset"
    case verifyEmail = "verify-email"
}

/// The accounts service: sign-up/in, sessions and ID tokens, action codes and admin operations. Every method is
/// blocking (database and argon2id work) and thread-safe: call it from the server's worker pool.
public final class AuthService: Sendable {
    public let configuration: AuthConfiguration
    public let store: any AccountStore
    public let clock: AuthClock
    /// Per-IP limiter (`AuthRateLimits.perIP`), keyed `"<endpoint>:ip:<ip>"` by `checkRateLimit`.
    public let ipLimiter: RateLimiter
    /// Per-account limiter (`AuthRateLimits.perAccount`), keyed `"<endpoint>:email:<email key>"`.
    public let accountLimiter: RateLimiter
    let keys: SigningKeyRing
    let hasher: PasswordHasher
    let cache: TokenCache

    /// Opens the service on `directory` (the data directory): `accounts.db` and `auth-signing-keys.json` live there.
    public convenience init(
        directory: String, configuration: AuthConfiguration = AuthConfiguration(), clock: AuthClock = .system
    ) throws {
        try self.init(
            directory: directory,
            store: CachedAccountStore(
                base: SQLiteAccountStore(directory: directory), capacity: configuration.accountCacheCapacity),
            configuration: configuration, clock: clock)
    }

    /// Opens the service with another `AccountStore`; signing keys still live in `directory`.
    public init(directory: String, store: any AccountStore, configuration: AuthConfiguration, clock: AuthClock) throws {
        self.configuration = configuration
        self.store = store
        self.clock = clock
        keys = try SigningKeyRing(
            directory: directory, retiredKeys: configuration.retiredSigningKeys, now: Int64(clock.now()))
        hasher = try PasswordHasher(opsLimit: configuration.passwordOpsLimit, memLimit: configuration.passwordMemLimit)
        cache = TokenCache(capacity: configuration.tokenCacheCapacity)
        let limits = configuration.rateLimits
        ipLimiter = RateLimiter(
            limit: limits.perIP, enabled: limits.enabled, maxBuckets: limits.maxBuckets, clock: clock)
        accountLimiter = RateLimiter(
            limit: limits.perAccount, enabled: limits.enabled, maxBuckets: limits.maxBuckets, clock: clock)
    }

    // MARK: Rate limits

    /// Charges one attempt at `endpoint` to the client address and (when given and valid) the account's address;
    /// throws 429 `TOO_MANY_ATTEMPTS_TRY_LATER` with `Retry-After`. Call before the operation.
    public func checkRateLimit(_ endpoint: AuthEndpoint, ip: String?, email: String?) throws {
        if let ip { try ipLimiter.check("\(endpoint.rawValue):ip:\(ip)") }
        if let email, let address = try? EmailAddress(email) {
            try accountLimiter.check("\(endpoint.rawValue):email:\(address.key)")
        }
    }

    // MARK: Sign-up, sign-in, refresh, sign-out

    /// Creates an account and signs it in. Throws `INVALID_EMAIL`, `MISSING_PASSWORD`, `WEAK_PASSWORD`,
    /// `EMAIL_EXISTS`.
    public func signUp(email: String, password: String, displayName: String? = nil) throws -> AuthResult {
        let address = try EmailAddress(email)
        try validateNewPassword(password)
        let account = try insertAccount(
            address: address, password: password, displayName: displayName, emailVerified: false,
            customClaims: JSONObject())
        var result = try startSession(for: account)
        if configuration.sendVerificationOnSignUp {
            result.verificationCode = try makeActionCode(.verifyEmail, uid: account.uid, email: account.email)
        }
        return result
    }

    /// Signs in with email and password. Unknown email and wrong password both throw `INVALID_LOGIN_CREDENTIALS`
    /// after the same argon2id work. Also `MISSING_PASSWORD`, `INVALID_EMAIL`, `USER_DISABLED`,
    /// `EMAIL_NOT_VERIFIED` (when `requireVerifiedEmail`).
    public func signIn(email: String, password: String) throws -> AuthResult {
        guard !password.isEmpty else { throw KuraError.missingPassword }
        let address = try EmailAddress(email)
        guard password.utf8.count <= configuration.maxPasswordBytes else { throw KuraError.invalidLoginCredentials }
        guard var account = try store.account(emailKey: address.key) else {
            // Same cost as a wrong password, so response time does not reveal which addresses have accounts.
            _ = hasher.verify(password, against: hasher.dummyHash)
            throw KuraError.invalidLoginCredentials
        }
        guard hasher.verify(password, against: account.passwordHash) else { throw KuraError.invalidLoginCredentials }
        guard !account.disabled else { throw KuraError.userDisabled }
        if configuration.requireVerifiedEmail && !account.emailVerified { throw KuraError.emailNotVerified }
        if hasher.needsRehash(account.passwordHash) { account.passwordHash = try hasher.hash(password) }
        account.lastSignInTime = nowMicros()
        try store.updateAccount(account)
        return try startSession(for: account)
    }

    /// Exchanges a refresh token for a new ID token and a new refresh token (the old one stops working).
    /// Presenting an already-rotated token revokes its whole session, except the token rotated last, within
    /// `refreshTokenReuseGrace` seconds of its rotation (a retry). Throws `INVALID_REFRESH_TOKEN`, `USER_DISABLED`.
    public func refresh(refreshToken: String) throws -> AuthResult {
        guard !refreshToken.isEmpty, refreshToken.utf8.count <= 256 else { throw KuraError.invalidRefreshToken }
        let newToken = Base64.encode(SecureRandom.bytes(32), .urlSafe)
        switch try store.rotateRefreshToken(
            presentedHash: Sodium.sha256(refreshToken), newHash: Sodium.sha256(newToken), now: nowMicros(),
            reuseGrace: Int64(configuration.refreshTokenReuseGrace * 1_000_000))
        {
        case .invalid:
            throw KuraError.invalidRefreshToken
        case .reused(let session):
            cache.invalidate(uid: session.uid)
            throw KuraError.invalidRefreshToken
        case .rotated(let session):
            guard let account = try store.account(uid: session.uid) else { throw KuraError.invalidRefreshToken }
            guard !account.disabled else { throw KuraError.userDisabled }
            return AuthResult(
                user: AuthUser(account), idToken: issueIDToken(account: account, session: session),
                refreshToken: newToken, expiresIn: configuration.idTokenLifetime)
        }
    }

    /// Revokes the caller's session, or every session of the user with `allSessions`. Effective immediately for
    /// cached ID tokens in this process.
    public func signOut(_ claims: AuthClaims, allSessions: Bool = false) throws {
        if allSessions {
            try store.revokeSessions(uid: claims.uid, except: nil)
        } else {
            try store.revokeSession(id: claims.sessionID)
        }
        cache.invalidate(uid: claims.uid)
    }

    // MARK: ID tokens

    /// Verifies an ID token (signature, issuer, audience, expiry, session and account state) and returns its
    /// claims. Repeated calls hit an in-memory cache; the database is re-checked every `tokenRecheckInterval` and
    /// right after any revocation in this process. Throws `INVALID_ID_TOKEN`, `TOKEN_EXPIRED`, `USER_DISABLED`.
    public func verifyIDToken(_ token: String) throws -> AuthClaims {
        let now = clock.now()
        let cached = cache.entry(token)
        if let cached {
            guard Double(cached.claims.expiresAt) > now else {
                cache.remove(token)
                throw KuraError.tokenExpired
            }
            if now - cached.checkedAt < configuration.tokenRecheckInterval { return cached.claims }
        }
        let epoch = cache.epoch
        let claims =
            try cached?.claims
            ?? IDToken.decode(
                token, issuer: configuration.issuer, audience: configuration.audience, key: keys.key(kid:))
        guard Double(claims.expiresAt) > now else { throw KuraError.tokenExpired }
        guard Double(claims.issuedAt) <= now + 60 else {
            throw KuraError.invalidIDToken("the ID token is from the future")
        }
        do {
            try checkSessionIsLive(claims)
        } catch {
            cache.remove(token)
            throw error
        }
        cache.insert(token, claims: claims, checkedAt: now, epoch: epoch)
        return claims
    }

    /// The public signing keys, for clients and other services verifying ID tokens:
    /// `{"keys":[{"kty":"OKP","crv":"Ed25519","kid","x","alg":"EdDSA","use":"sig"}]}`, active key first.
    public func jwks() -> JSONValue { keys.jwks }

    /// Makes a new signing key; tokens signed by the previous keys stay valid until they expire.
    public func rotateSigningKey() throws { try keys.rotate(now: Int64(clock.now())) }

    private func checkSessionIsLive(_ claims: AuthClaims) throws {
        guard let session = try store.session(id: claims.sessionID), session.uid == claims.uid, !session.revoked,
            let account = try (store as? CachedAccountStore)?.freshAccount(uid: claims.uid)
                ?? store.account(uid: claims.uid)
        else { throw KuraError.invalidIDToken("the session has been revoked") }
        guard !account.disabled else { throw KuraError.userDisabled }
    }
}
