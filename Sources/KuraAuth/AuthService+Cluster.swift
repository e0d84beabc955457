import KuraCore
import Synchronization

/// A change made in this process that other nodes sharing the accounts must hear of, so that what they cache stays
/// correct (docs/design/scaling.md, "What nodes tell each other").
public enum AuthChange: Sendable, Equatable {
    /// An account changed without narrowing what its tokens grant (display name, a verified address).
    case accountChanged(uid: String)
    /// Access granted earlier no longer holds.
    case revoked(Revocation)
    /// A new signing key signs ID tokens.
    case signingKeysRotated
}

/// The observers of `AuthService`'s changes; thread-safe.
final class AuthChangeObservers: Sendable {
    private let observers = Mutex<[@Sendable (AuthChange) -> Void]>([])

    func add(_ observer: @escaping @Sendable (AuthChange) -> Void) { observers.withLock { $0.append(observer) } }

    func announce(_ change: AuthChange) {
        for observer in observers.withLock({ $0 }) { observer(change) }
    }
}

extension AuthService {
    /// Calls `observer` with every change made in this process (never with those applied by `applyRemote`),
    /// synchronously on the thread that made it, after the database write and before the operation returns: a
    /// node publishes them to the others there. Register at start-up.
    public func observeChanges(_ observer: @escaping @Sendable (AuthChange) -> Void) {
        changeObservers.add(observer)
    }

    /// Applies a change another node made (its database write is done): the account cache forgets the user, the
    /// user's cached token verifications re-check the database on their next use (`revocationEpoch` moves), and a
    /// revocation is announced to this process's `observeRevocations` observers, which end its listen streams — as
    /// if it had been made here. A rotation makes the signing keys be read again.
    public func applyRemote(_ change: AuthChange) {
        switch change {
        case .accountChanged(let uid):
            (store as? CachedAccountStore)?.forget(uid: uid)
            cache.invalidate(uid: uid)
        case .revoked(let revocation):
            (store as? CachedAccountStore)?.forget(uid: revocation.uid)
            cache.invalidate(uid: revocation.uid)
            revocations.announce(revocation)
        case .signingKeysRotated:
            keys.reload()
        }
    }

    /// Forgets every cached account and makes every cached token verification re-check the database: for a node
    /// that may have missed other nodes' changes. Reads the signing keys again too.
    public func forgetCachedState() {
        (store as? CachedAccountStore)?.forgetAll()
        cache.invalidateAll()
        keys.reload()
    }

    /// For a node that cannot hear the other nodes (its channel lost its connection): forgets every cached account,
    /// and until `resumeCachedTokens` answers no token from the token cache, so every request re-checks the
    /// database (per-thread caches go stale with `revocationEpoch`).
    public func suspendCachedTokens() {
        cache.suspend()
        (store as? CachedAccountStore)?.forgetAll()
    }

    /// Ends `suspendCachedTokens`, once the node hears the other nodes again (after `forgetCachedState`).
    public func resumeCachedTokens() { cache.resume() }

    /// Whether `suspendCachedTokens` is in force; for tests and diagnostics.
    public var cachedTokensSuspended: Bool { cache.isSuspended }

    /// The user's account changed in this process: cached verifications take the change, other nodes hear of it.
    func accountChanged(uid: String) {
        cache.invalidate(uid: uid)
        changeObservers.announce(.accountChanged(uid: uid))
    }
}
