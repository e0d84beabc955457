import KuraCore
import KuraModel
import Synchronization

/// Verified ID tokens, so a repeated verification is a dictionary lookup instead of a signature check and a
/// database read. Bounded by `capacity`; entries die at the token's `exp`.
///
/// Keyed by the token's last `keyLength` bytes (inside its signature, so they differ between tokens) rather than
/// the whole ~440-byte token, which every request would otherwise hash; a hit still compares the whole token.
///
/// Revocation: `invalidate(uid:)` marks a user's entries stale (their next use re-checks the database, without a
/// signature check) and bumps `epoch`; a verification that started before the bump does not insert its result, so a
/// revocation racing a verification cannot leave a revoked token cached.
final class TokenCache: Sendable {
    struct Entry {
        /// The whole token, which a lookup must equal.
        var token: String
        var claims: AuthClaims
        /// When the session and account were last checked in the database, in `AuthClock.elapsed` seconds (an
        /// interval, so a wall-clock step cannot postpone the re-check); `-infinity` = check on next use.
        var checkedAt: Double
    }
    private struct State {
        var entries: [Substring: Entry] = [:]
        /// While set, nothing is answered from the cache nor added to it (`suspend`).
        var suspended = false
    }

    private let capacity: Int
    private let state = Mutex(State())
    /// Changed only under the lock, read without it: per-thread caches compare it on every use.
    private let epochCounter = Atomic<UInt64>(0)

    static let keyLength = 32

    init(capacity: Int) { self.capacity = max(1, capacity) }

    private static func key(_ token: String) -> Substring { token.utf8Tail(keyLength) }

    /// The entry for `token`, if cached.
    func entry(_ token: String) -> Entry? {
        guard let entry = state.withLock({ $0.suspended ? nil : $0.entries[Self.key(token)] }),
            entry.token.bytesEqual(token)
        else {
            return nil
        }
        return entry
    }

    /// The current revocation epoch; pass it back to `insert` after checking the database.
    var epoch: UInt64 { epochCounter.load(ordering: .acquiring) }

    /// Caches a verification done when the epoch was `epoch`, at `checkedAt` (`AuthClock.elapsed`) and wall-clock
    /// time `now`; ignored if a revocation happened since.
    func insert(_ token: String, claims: AuthClaims, checkedAt: Double, now wallNow: Double, epoch: UInt64) {
        state.withLock { state in
            guard !state.suspended, epochCounter.load(ordering: .relaxed) == epoch else { return }
            let key = Self.key(token)
            if state.entries[key] == nil && state.entries.count >= capacity {
                // Expired entries first; if the cache is full of live tokens, start over (cheap, and rare).
                let now = Int64(wallNow)
                state.entries = state.entries.filter { $0.value.claims.expiresAt > now }
                if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            }
            state.entries[key] = Entry(token: token, claims: claims, checkedAt: checkedAt)
        }
    }

    /// Forgets `token` (expired or revoked).
    func remove(_ token: String) {
        state.withLock { state in
            let key = Self.key(token)
            if state.entries[key]?.token.bytesEqual(token) == true { state.entries.removeValue(forKey: key) }
        }
    }

    /// Makes every cached token of `uid` re-check the database on its next use.
    func invalidate(uid: String) {
        state.withLock { state in
            epochCounter.wrappingAdd(1, ordering: .releasing)
            for (key, entry) in state.entries where entry.claims.uid.bytesEqual(uid) {
                state.entries[key]?.checkedAt = -.infinity
            }
        }
    }

    /// Makes every cached token re-check the database on its next use.
    func invalidateAll() {
        state.withLock { state in
            epochCounter.wrappingAdd(1, ordering: .releasing)
            for key in state.entries.keys { state.entries[key]?.checkedAt = -.infinity }
        }
    }

    /// Stops answering from the cache (every token re-checks the database, every time) and makes every
    /// per-thread cache stale, until `resume`: for a node that cannot hear the other nodes' revocations.
    func suspend() {
        state.withLock { state in
            state.suspended = true
            epochCounter.wrappingAdd(1, ordering: .releasing)
            for key in state.entries.keys { state.entries[key]?.checkedAt = -.infinity }
        }
    }

    /// Answers from the cache again (after `suspend`); the entries cached before still re-check on next use.
    func resume() { state.withLock { $0.suspended = false } }

    /// Whether `suspend` is in force.
    var isSuspended: Bool { state.withLock { $0.suspended } }

    /// Number of cached tokens.
    var count: Int { state.withLock { $0.entries.count } }
}
