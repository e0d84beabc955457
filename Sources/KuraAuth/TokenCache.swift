import Synchronization

/// Verified ID tokens, keyed by the token string, so a repeated verification is a dictionary lookup instead of a
/// signature check and a database read. Bounded by `capacity`; entries die at the token's `exp`.
///
/// Revocation: `invalidate(uid:)` marks a user's entries stale (their next use re-checks the database, without a
/// signature check) and bumps `epoch`; a verification that started before the bump does not insert its result, so a
/// revocation racing a verification cannot leave a revoked token cached.
final class TokenCache: Sendable {
    struct Entry {
        var claims: AuthClaims
        /// When the session and account were last checked in the database; `-infinity` = check on next use.
        var checkedAt: Double
    }
    private struct State {
        var entries: [String: Entry] = [:]
        var epoch: UInt64 = 0
    }

    private let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The entry for `token`, if cached.
    func entry(_ token: String) -> Entry? { state.withLock { $0.entries[token] } }

    /// The current revocation epoch; pass it back to `insert` after checking the database.
    var epoch: UInt64 { state.withLock { $0.epoch } }

    /// Caches a verification done when the epoch was `epoch`; ignored if a revocation happened since.
    func insert(_ token: String, claims: AuthClaims, checkedAt: Double, epoch: UInt64) {
        state.withLock { state in
            guard state.epoch == epoch else { return }
            if state.entries[token] == nil && state.entries.count >= capacity {
                // Expired entries first; if the cache is full of live tokens, start over (cheap, and rare).
                let now = Int64(checkedAt)
                state.entries = state.entries.filter { $0.value.claims.expiresAt > now }
                if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            }
            state.entries[token] = Entry(claims: claims, checkedAt: checkedAt)
        }
    }

    /// Forgets `token` (expired or revoked).
    func remove(_ token: String) { _ = state.withLock { $0.entries.removeValue(forKey: token) } }

    /// Makes every cached token of `uid` re-check the database on its next use.
    func invalidate(uid: String) {
        state.withLock { state in
            state.epoch &+= 1
            for (token, entry) in state.entries where entry.claims.uid == uid {
                state.entries[token]?.checkedAt = -.infinity
            }
        }
    }

    /// Number of cached tokens.
    var count: Int { state.withLock { $0.entries.count } }
}
