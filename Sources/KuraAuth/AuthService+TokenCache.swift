import KuraCore
import KuraModel

extension AuthService {
    /// The claims of `token` if they are in the token cache, unexpired and recently re-checked; `nil` means
    /// "ask `verifyIDToken` on the worker pool". Memory only: safe on an event loop.
    public func cachedClaims(token: String) -> AuthClaims? { cachedVerification(token: token)?.claims }

    /// What `cachedClaims` answers, with how long the answer holds: a per-thread cache may reuse `claims` without
    /// asking again while `validity.holds(clock)` and `revocationEpoch == epoch`.
    public func cachedVerification(token: String) -> CachedVerification? {
        // The epoch first: a revocation after this read makes the answer stale even if the entry read misses it.
        let epoch = cache.epoch
        guard let entry = cache.entry(token) else { return nil }
        let validity = CachedVerification.Validity(
            expiresAt: Double(entry.claims.expiresAt), recheckAt: entry.checkedAt + configuration.tokenRecheckInterval)
        guard validity.holds(clock) else { return nil }
        return CachedVerification(claims: entry.claims, validity: validity, epoch: epoch)
    }

    /// Changes with every revocation in this process (sign-out, password change, disabled or deleted account,
    /// changed claims); see `cachedVerification`. Lock-free.
    public var revocationEpoch: UInt64 { cache.epoch }

    /// The caller's account for `GET /api/auth/me`, as encoded `AuthUser` JSON, when both the token and the
    /// account are cached; memory only.
    public func cachedUserJSON(token: String) -> [UInt8]? {
        guard let claims = cachedClaims(token: token), let cached = store as? CachedAccountStore else { return nil }
        return cached.cachedUserJSON(uid: claims.uid)
    }
}

/// A token verification from the token cache, reusable while `validity` holds unless `AuthService.revocationEpoch`
/// moves past `epoch`.
public struct CachedVerification: Sendable {
    /// How long a cached verification holds: until the token expires (a date, on the wall clock) and until it is
    /// due for its periodic re-check (an interval, on the monotonic clock).
    public struct Validity: Sendable {
        /// The token's `exp`, `AuthClock.now` seconds.
        public let expiresAt: Double
        /// When the account must be checked again, `AuthClock.elapsed` seconds.
        public let recheckAt: Double

        /// Whether the verification still holds by `clock`.
        @inline(__always)
        public func holds(_ clock: AuthClock) -> Bool { clock.elapsed() < recheckAt && clock.now() < expiresAt }
    }

    public let claims: AuthClaims
    public let validity: Validity
    public let epoch: UInt64
}
