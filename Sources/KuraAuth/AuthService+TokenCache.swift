import KuraCore
import KuraModel

extension AuthService {
    /// The claims of `token` if they are in the token cache, unexpired and recently re-checked; `nil` means
    /// "ask `verifyIDToken` on the worker pool". Memory only: safe on an event loop.
    public func cachedClaims(token: String) -> AuthClaims? { cachedVerification(token: token)?.claims }

    /// What `cachedClaims` answers, with how long the answer holds: a per-thread cache may reuse `claims` without
    /// asking again while `clock.now() < validUntil` and `revocationEpoch == epoch`.
    public func cachedVerification(token: String) -> CachedVerification? {
        // The epoch first: a revocation after this read makes the answer stale even if the entry read misses it.
        let epoch = cache.epoch
        guard let entry = cache.entry(token) else { return nil }
        let validUntil = min(Double(entry.claims.expiresAt), entry.checkedAt + configuration.tokenRecheckInterval)
        guard clock.now() < validUntil else { return nil }
        return CachedVerification(claims: entry.claims, validUntil: validUntil, epoch: epoch)
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

/// A token verification from the token cache, reusable until `validUntil` (`AuthClock` seconds) unless
/// `AuthService.revocationEpoch` moves past `epoch`.
public struct CachedVerification: Sendable {
    public let claims: AuthClaims
    public let validUntil: Double
    public let epoch: UInt64
}
