import KuraCore
import KuraModel
import Synchronization

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
    /// Warnings for the operator.
    let log: @Sendable (String) -> Void
    let cache: TokenCache
    /// Sign-ins and rate-limit refusals since the process started (for `/metrics`).
    public let outcomes = AuthOutcomes()
    let revocations = RevocationObservers()
    let changeObservers = AuthChangeObservers()

    /// Opens the service on its stores: accounts, sessions and action codes in `store`, the ID-token signing keys
    /// in `keys` (a first key is made when it holds none). The SQLite engine opens both in the data directory
    /// (`AuthService(directory:)` in KuraSQLiteEngine). `log` receives warnings for the operator (a stored password
    /// hash refused for its cost). Throws `Argon2HashProblem` when the hashing parameters are outside
    /// `configuration.argon2Bounds`.
    public init(
        store: any AccountStore, keys: any SigningKeyStore, configuration: AuthConfiguration,
        clock: AuthClock = .system, log: @escaping @Sendable (String) -> Void = { _ in }
    ) throws {
        self.configuration = configuration
        self.store = store
        self.clock = clock
        self.keys = try SigningKeyRing(store: keys, retiredKeys: configuration.retiredSigningKeys, clock: clock)
        self.log = log
        hasher = try PasswordHasher(
            opsLimit: configuration.passwordOpsLimit, memLimit: configuration.passwordMemLimit,
            bounds: configuration.argon2Bounds, concurrency: configuration.passwordHashConcurrency)
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
        do {
            if let ip { try ipLimiter.check("\(endpoint.rawValue):ip:\(ip)") }
            if let email, let address = try? EmailAddress(email) {
                try accountLimiter.check("\(endpoint.rawValue):email:\(address.key)")
            }
        } catch {
            outcomes.rateLimited.add(1, ordering: .relaxed)
            throw error
        }
    }

    /// Sign-in throttling, which counts failures rather than attempts so that nobody but the guesser is slowed:
    /// 429 `TOO_MANY_ATTEMPTS_TRY_LATER` when the client address has used up its failed sign-ins (`perIP`), or
    /// when the account has (`perAccount`, failures from any address) and this address has failed too within
    /// its bucket's refill time. So a correct password from an address that has not been failing goes through
    /// even while strangers keep an account's bucket empty. Call before `signIn`; report failures with
    /// `recordFailedSignIn`.
    public func checkSignInThrottle(ip: String?, email: String) throws {
        let ipKey = ip.map { "\(AuthEndpoint.signIn.rawValue):ip:\($0)" }
        if let ipKey, let wait = ipLimiter.retryAfter(ipKey) {
            outcomes.rateLimited.add(1, ordering: .relaxed)
            throw APIError.tooManyAttempts(seconds: wait)
        }
        guard let accountKey = signInAccountKey(email), let wait = accountLimiter.retryAfter(accountKey) else {
            return
        }
        // The account is being guessed at; only an address with a clean record may try.
        if let ipKey, !ipLimiter.isCharged(ipKey) { return }
        outcomes.rateLimited.add(1, ordering: .relaxed)
        throw APIError.tooManyAttempts(seconds: wait)
    }

    /// Counts a failed sign-in (`INVALID_LOGIN_CREDENTIALS`) against the address and the account. A failure
    /// against an account whose bucket is already empty (one let through by `checkSignInThrottle`) empties the
    /// address's bucket too: each address gets one such guess per `perIP` burst × refill interval.
    public func recordFailedSignIn(ip: String?, email: String) {
        let accountKey = signInAccountKey(email)
        let accountLocked = accountKey.map { accountLimiter.retryAfter($0) != nil } ?? false
        if let ip {
            ipLimiter.charge(
                "\(AuthEndpoint.signIn.rawValue):ip:\(ip)", count: accountLocked ? ipLimiter.limit.burst : 1)
        }
        if let accountKey { accountLimiter.charge(accountKey) }
    }

    private func signInAccountKey(_ email: String) -> String? {
        (try? EmailAddress(email)).map { "\(AuthEndpoint.signIn.rawValue):email:\($0.key)" }
    }

    // MARK: Sign-up, sign-in, refresh, sign-out

    /// Creates an account and signs it in. With `requireVerifiedEmail` the account is created without a session
    /// (`AuthResult.isSignedIn` is false, as PocketBase does for collections that need verified users): its owner
    /// verifies the address from the mail, then signs in; the verification code is made whatever
    /// `sendVerificationOnSignUp` says. Throws `INVALID_EMAIL`, `MISSING_PASSWORD`, `WEAK_PASSWORD`, `EMAIL_EXISTS`.
    public func signUp(email: String, password: String, displayName: String? = nil) throws -> AuthResult {
        let address = try EmailAddress(email)
        try validateNewPassword(password)
        let account = try insertAccount(
            address: address, password: password, displayName: displayName, emailVerified: false,
            customClaims: JSONObject())
        var result =
            configuration.requireVerifiedEmail
            ? AuthResult.accountOnly(AuthUser(account)) : try startSession(for: account)
        if configuration.sendVerificationOnSignUp || configuration.requireVerifiedEmail {
            result.verificationCode = try makeActionCode(.verifyEmail, uid: account.uid, email: account.email)
        }
        return result
    }

    /// Signs in with email and password. Unknown email and wrong password both throw `INVALID_LOGIN_CREDENTIALS`
    /// after the same argon2id work. Also `MISSING_PASSWORD`, `INVALID_EMAIL`, `USER_DISABLED`,
    /// `EMAIL_NOT_VERIFIED` (when `requireVerifiedEmail`).
    public func signIn(email: String, password: String) throws -> AuthResult {
        do {
            let result = try signInUncounted(email: email, password: password)
            outcomes.signIns.add(1, ordering: .relaxed)
            return result
        } catch {
            outcomes.signInFailures.add(1, ordering: .relaxed)
            throw error
        }
    }

    private func signInUncounted(email: String, password: String) throws -> AuthResult {
        guard !password.isEmpty else { throw APIError.missingPassword }
        let address = try EmailAddress(email)
        guard password.utf8.count <= configuration.maxPasswordBytes else { throw APIError.invalidLoginCredentials }
        guard var account = try store.account(emailKey: address.key) else {
            // Same cost as a wrong password, so response time does not reveal which addresses have accounts.
            _ = hasher.verify(password, against: hasher.dummyHash)
            throw APIError.invalidLoginCredentials
        }
        switch hasher.verify(password, against: account.passwordHash) {
        case .match: break
        case .mismatch: throw APIError.invalidLoginCredentials
        case .refused(let problem):
            // Answered like a wrong password (telling the caller would say the address has an account); the
            // operator learns it here, and a new password (a reset, or an admin update) replaces the hash.
            log(
                "sign-in to account \(account.uid) refused without verifying: its password hash \(problem); set a "
                    + "new password for it (password reset or the admin API)")
            throw APIError.invalidLoginCredentials
        }
        guard !account.disabled else { throw APIError.userDisabled }
        if configuration.requireVerifiedEmail && !account.emailVerified { throw APIError.emailNotVerified }
        if hasher.needsRehash(account.passwordHash) { account.passwordHash = try hasher.hash(password) }
        account.lastSignInTime = nowMicros()
        try store.updateAccount(account)
        return try startSession(for: account)
    }

    /// Exchanges a refresh token for a new ID token and a new refresh token (the old one stops working).
    /// Presenting an already-rotated token revokes its whole session, except the token rotated last, within
    /// `refreshTokenReuseGrace` seconds of its rotation (a retry). Throws `INVALID_REFRESH_TOKEN`, `USER_DISABLED`,
    /// `EMAIL_NOT_VERIFIED` (with `requireVerifiedEmail`, for an unverified account: the presented token is spent
    /// and no new one issued, so the session ends; its owner signs in again once the address is verified).
    public func refresh(refreshToken: String) throws -> AuthResult {
        guard !refreshToken.isEmpty, refreshToken.utf8.count <= 256 else { throw APIError.invalidRefreshToken }
        let newToken = Base64.encode(SecureRandom.bytes(32), .urlSafe)
        switch try store.rotateRefreshToken(
            presentedHash: Sodium.sha256(refreshToken), newHash: Sodium.sha256(newToken), now: nowMicros(),
            reuseGrace: Int64(configuration.refreshTokenReuseGrace * 1_000_000))
        {
        case .invalid:
            throw APIError.invalidRefreshToken
        case .reused(let session):
            revoke(Revocation(uid: session.uid, sessionID: session.id))
            throw APIError.invalidRefreshToken
        case .rotated(let session):
            guard let account = try store.account(uid: session.uid) else { throw APIError.invalidRefreshToken }
            guard !account.disabled else { throw APIError.userDisabled }
            if configuration.requireVerifiedEmail && !account.emailVerified { throw APIError.emailNotVerified }
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
        revoke(Revocation(uid: claims.uid, sessionID: allSessions ? nil : claims.sessionID))
    }

    // MARK: ID tokens

    /// Verifies an ID token (signature, issuer, audience, expiry, session and account state) and returns its
    /// claims. The claims that can grant power (`email`, `email_verified`, custom claims such as `admin`) are the
    /// account's as it is now, not as the token was issued: a demoted administrator is demoted on the next request.
    /// Repeated calls hit an in-memory cache; the database is re-checked every `tokenRecheckInterval` and right
    /// after any change to the user's account or sessions in this process. Throws `INVALID_ID_TOKEN`,
    /// `TOKEN_EXPIRED`, `USER_DISABLED`.
    public func verifyIDToken(_ token: String) throws -> AuthClaims {
        let now = clock.now()
        let elapsed = clock.elapsed()
        let cached = cache.entry(token)
        if let cached {
            guard Double(cached.claims.expiresAt) > now else {
                cache.remove(token)
                throw APIError.tokenExpired
            }
            if elapsed - cached.checkedAt < configuration.tokenRecheckInterval { return cached.claims }
        }
        let epoch = cache.epoch
        var claims =
            try cached?.claims
            ?? IDToken.decode(
                token, issuer: configuration.issuer, audience: configuration.audience, key: keys.key(kid:))
        guard Double(claims.expiresAt) > now else { throw APIError.tokenExpired }
        guard Double(claims.issuedAt) <= now + 60 else {
            throw APIError.invalidIDToken("the ID token is from the future")
        }
        do {
            let account = try liveAccount(of: claims)
            claims.email = account.email
            claims.emailVerified = account.emailVerified
            claims.customClaims = account.customClaims
        } catch {
            cache.remove(token)
            throw error
        }
        cache.insert(token, claims: claims, checkedAt: elapsed, now: now, epoch: epoch)
        return claims
    }

    /// The public signing keys, for clients and other services verifying ID tokens:
    /// `{"keys":[{"kty":"OKP","crv":"Ed25519","kid","x","alg":"EdDSA","use":"sig"}]}`, active key first.
    public func jwks() -> JSONValue { keys.jwks }

    /// Makes a new signing key; tokens signed by the previous keys stay valid until they expire.
    public func rotateSigningKey() throws {
        try keys.rotate(now: Int64(clock.now()))
        changeObservers.announce(.signingKeysRotated)
    }

    /// The account of a token whose session is live, read past the account cache (so that the periodic re-check
    /// also sees other processes' changes). Throws when the session is revoked or the account gone or disabled.
    private func liveAccount(of claims: AuthClaims) throws -> AccountRecord {
        guard let session = try store.session(id: claims.sessionID), session.uid == claims.uid, !session.revoked,
            let account = try (store as? CachedAccountStore)?.freshAccount(uid: claims.uid)
                ?? store.account(uid: claims.uid)
        else { throw APIError.invalidIDToken("the session has been revoked") }
        guard !account.disabled else { throw APIError.userDisabled }
        return account
    }

    // MARK: Revocation

    /// Calls `observer` with every revocation made in this process (see `Revocation`), synchronously on the thread
    /// that made it, before the operation returns. Observers cannot be removed: register them at start-up.
    public func observeRevocations(_ observer: @escaping @Sendable (Revocation) -> Void) {
        revocations.add(observer)
    }

    /// Makes the user's cached verifications re-check the database (bumping `revocationEpoch`), then tells the
    /// observers. Call after the database write.
    func revoke(_ revocation: Revocation) {
        cache.invalidate(uid: revocation.uid)
        revocations.announce(revocation)
        changeObservers.announce(.revoked(revocation))
    }
}

/// What became of sign-in attempts and rate-limited requests in this process since it started.
public final class AuthOutcomes: Sendable {
    /// Sign-ins with email and password that started a session.
    public let signIns = Atomic<UInt64>(0)
    /// Sign-ins refused (wrong or missing credentials, disabled or unverified account).
    public let signInFailures = Atomic<UInt64>(0)
    /// Requests refused with 429 `TOO_MANY_ATTEMPTS_TRY_LATER` (sign-in throttle and the other auth endpoints).
    public let rateLimited = Atomic<UInt64>(0)

    public init() {}
}
