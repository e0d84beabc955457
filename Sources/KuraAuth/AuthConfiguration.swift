import CSodium
import KuraCore
import KuraModel

/// The source of "now" for everything time-based in the module, injectable so tests need no sleeps: `now` for
/// dates (token lifetimes, action-code expiry, cache re-checks against a token's `exp`), `elapsed` for intervals
/// that mean no date (rate-limit refill), so that a wall-clock step neither refills nor freezes a bucket.
public struct AuthClock: Sendable {
    /// Seconds since the Unix epoch, with sub-second precision.
    public var now: @Sendable () -> Double
    /// Seconds since an arbitrary fixed point, never going back (`MonotonicClock` for `.system`).
    public var elapsed: @Sendable () -> Double

    /// A clock whose `elapsed` is `now` itself (a test clock moved by hand moves both).
    public init(now: @escaping @Sendable () -> Double) {
        self.now = now
        self.elapsed = now
    }

    /// A clock with separate dates and intervals.
    public init(now: @escaping @Sendable () -> Double, elapsed: @escaping @Sendable () -> Double) {
        self.now = now
        self.elapsed = elapsed
    }

    /// The wall clock for dates, the monotonic clock for intervals.
    public static let system = AuthClock(
        now: { Double(WallClock.nowMicros()) / 1_000_000 }, elapsed: { MonotonicClock.seconds() })
}

/// Knobs of the accounts module. Every default is chosen for a small self-hosted deployment and documented here.
public struct AuthConfiguration: Sendable {
    /// `iss` claim of issued ID tokens (and required on verification).
    public var issuer: String = "kura"
    /// `aud` claim of issued ID tokens (and required on verification).
    public var audience: String = "kura"
    /// Whether issued ID tokens also carry Firebase's claims: `user_id` (the uid) and `firebase`
    /// (`{"identities":{"email":[…]},"sign_in_provider":"password"}`), which Firebase's Admin SDKs read. Set, with
    /// `issuer` and `audience`, by the Firebase Auth compatibility (`compat.firebaseAuth`). Default `false`.
    public var firebaseClaims = false
    /// ID-token lifetime in seconds. Default 3600 (1 h), like Firebase.
    public var idTokenLifetime: Int64 = 3600
    /// Password and email changes (and account deletion) need a sign-in at most this many seconds ago. Default 300.
    public var recentLoginWindow: Int64 = 300
    /// Email-verification and email-change codes expire after this many seconds. Default 86 400 (24 h).
    public var verificationCodeLifetime: Int64 = 86_400
    /// Password-reset codes expire after this many seconds. Default 3600 (1 h).
    public var passwordResetCodeLifetime: Int64 = 3600
    /// Create an email-verification code on sign-up (returned in `AuthResult.verificationCode`). Default `true`.
    public var sendVerificationOnSignUp = true
    /// No access until the address is verified: sign-up starts no session, sign-in and refresh answer 403
    /// `EMAIL_NOT_VERIFIED` (and the server refuses unverified callers on every data endpoint). Default `false`.
    public var requireVerifiedEmail = false
    /// Shortest accepted password, in characters. Default 6 (Firebase's minimum).
    public var minPasswordLength = 6
    /// The longest `continueUrl` an action mail may carry, in bytes. Default 2048.
    public var maxContinueURLBytes = 2048
    /// Longest accepted password in UTF-8 bytes: 4 KiB, so a huge body cannot buy a long hash computation.
    public var maxPasswordBytes = 4096
    /// Argon2id (`crypto_pwhash_str_alg`, `crypto_pwhash_ALG_ARGON2ID13`) iterations. Default
    /// `crypto_pwhash_OPSLIMIT_INTERACTIVE` (2): with the memory limit below, ~50–100 ms on one core, the cost
    /// libsodium recommends for interactive logins on a server. Raise both for stronger hashes; existing hashes are
    /// upgraded on the next successful sign-in.
    public var passwordOpsLimit: UInt64 = UInt64(crypto_pwhash_opslimit_interactive())
    /// Argon2id memory in bytes. Default `crypto_pwhash_MEMLIMIT_INTERACTIVE` (64 MiB). Each password hash being
    /// computed holds this much memory; `passwordHashConcurrency` bounds how many are computed at once.
    public var passwordMemLimit: Int = crypto_pwhash_memlimit_interactive()
    /// Password hashes (argon2id, made or verified) computed at once; the others wait for one to finish. Argon2id
    /// keeps a core busy, so more at once than there are cores finish no sooner and only add `passwordMemLimit`
    /// each to the process's memory. 0 (the default): the number of cores.
    public var passwordHashConcurrency = 0
    /// The costs a stored hash may have to be verified, and an imported one to be accepted; the two limits above
    /// must make hashes within them.
    public var argon2Bounds = Argon2Bounds()
    /// Verified ID tokens kept in the verification cache. Default 10 000.
    public var tokenCacheCapacity = 10_000
    /// Accounts kept in memory by the account cache (`CachedAccountStore`). Default 100 000.
    public var accountCacheCapacity = 100_000
    /// A cached verification re-checks the session and account in the database after this many seconds, so a
    /// user disabled by another process stops working within that time. Default 60.
    public var tokenRecheckInterval: Double = 60
    /// How long, in seconds, the refresh token spent last in a session still works after its refresh: a client
    /// that lost the answer to a refresh (a dropped connection) retries with it and gets new tokens instead of
    /// having its session revoked for reuse. Any older spent token, or this one later, still revokes the session.
    /// Default 30; 0 turns the grace off.
    public var refreshTokenReuseGrace: Double = 30
    /// Old signing keys kept (for verification only) after rotation, besides the active one. Default 3.
    public var retiredSigningKeys = 3
    /// Rate limiting of the public endpoints; see `AuthRateLimits`.
    public var rateLimits = AuthRateLimits()

    public init() {}

    /// A configuration for tests: the cheapest argon2id parameters libsodium allows.
    public static var lowCostForTesting: AuthConfiguration {
        var configuration = AuthConfiguration()
        configuration.passwordOpsLimit = UInt64(crypto_pwhash_opslimit_min())
        configuration.passwordMemLimit = max(crypto_pwhash_memlimit_min(), 64 * 1024)
        return configuration
    }
}

/// The token-bucket limits used by `AuthService.checkRateLimit(_:ip:email:)`, and for sign-in by
/// `AuthService.checkSignInThrottle(ip:email:)`, which charges failed sign-ins only.
public struct AuthRateLimits: Sendable {
    /// Off switch for every limiter. Default on.
    public var enabled = true
    /// Per client IP and endpoint class: a burst of 20, then one attempt every 3 s (1 200/h) — generous for a NAT'ed
    /// office, far too slow for credential stuffing from one address.
    public var perIP = RateLimit(burst: 20, refillInterval: 3)
    /// Per account (email) and endpoint class: a burst of 5, then one attempt a minute — stops password guessing
    /// against one account from many addresses, and mail bombing through reset/verification requests.
    public var perAccount = RateLimit(burst: 5, refillInterval: 60)
    /// Buckets kept in memory per limiter; when exceeded, full (idle) buckets are dropped first. Default 100 000.
    public var maxBuckets = 100_000

    public init() {}
}
