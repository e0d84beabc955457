import KuraCore
import KuraModel
import Synchronization

/// An `AccountStore` that keeps account records in memory, so that the hot path of an authenticated request
/// (`AuthService.cachedUser(token:)`) needs no database read.
///
/// Coherence uses generations, as the document cache does: a reader takes the generation *before* reading the
/// base store; every insert, update or delete of an account bumps the generation and marks that uid; an insert of
/// a read older than the uid's mark is refused, so a read that raced a write is never cached. Evictions raise a
/// floor for the same reason. Writes by other nodes (a shared PostgreSQL store) reach it as `forget(uid:)` when the
/// node hears of them (`AuthService.applyRemote`); the token cache's periodic re-check bounds how long a change
/// whose notification was lost can go unseen.
public final class CachedAccountStore: AccountStore {
    public let base: any AccountStore
    private let capacity: Int
    private let state = Mutex(State())

    private struct Slot {
        var record: AccountRecord?
        var generation: Int64
        /// `AuthUser(record).json` encoded, made on first use by `cachedUserJSON`.
        var userJSON: [UInt8]? = nil
    }

    private struct State {
        var slots: [ByteKey: Slot] = [:]  // by bytes: `uid` can come from a URL (docs/api.md, "Identity")
        var generation: Int64 = 0
        var floor: Int64 = 0
    }

    public init(base: any AccountStore, capacity: Int = 100_000) {
        self.base = base
        self.capacity = max(1, capacity)
    }

    /// The cached record, if any; never touches the base store.
    public func cachedAccount(uid: String) -> AccountRecord? { state.withLock { $0.slots[ByteKey(uid)]?.record } }

    /// The cached account of an enabled user as encoded `AuthUser` JSON, kept with the record so the hot
    /// `GET /api/auth/me` encodes nothing; never touches the base store.
    func cachedUserJSON(uid: String) -> [UInt8]? {
        if let ready = state.withLock({ state -> [UInt8]?? in
            guard let slot = state.slots[ByteKey(uid)], let record = slot.record, !record.disabled else {
                return .some(nil)
            }
            return slot.userJSON.map { .some($0) } ?? nil
        }) {
            return ready
        }
        guard
            let (record, generation) = state.withLock({ state in
                state.slots[ByteKey(uid)].flatMap { slot in slot.record.map { ($0, slot.generation) } }
            })
        else { return nil }
        let encoded = AuthUser(record).json.jsonBytes
        state.withLock { state in
            // Only if the slot still holds the record this was made from: the same generation, not an equal record
            // (`AccountRecord ==` compares strings as `String` does, so a display name changed only in its
            // Unicode normalization would look unchanged).
            if state.slots[ByteKey(uid)]?.generation == generation { state.slots[ByteKey(uid)]?.userJSON = encoded }
        }
        return record.disabled ? nil : encoded
    }

    public func account(uid: String) throws -> AccountRecord? {
        if let cached = cachedAccount(uid: uid) { return cached }
        return try freshAccount(uid: uid)
    }

    /// Reads the base store, bypassing the cache, and caches the result: the token re-check calls this, which
    /// bounds how long another process's change (a disabled account, a new name) can go unseen here.
    public func freshAccount(uid: String) throws -> AccountRecord? {
        let token = state.withLock { $0.generation }
        let record = try base.account(uid: uid)
        state.withLock { state in
            guard token >= state.floor, (state.slots[ByteKey(uid)]?.generation ?? Int64.min) <= token else { return }
            if state.slots.count >= capacity { evict(&state) }
            state.slots[ByteKey(uid)] = Slot(record: record, generation: token)
        }
        return record
    }

    public func insertAccount(_ account: AccountRecord) throws {
        defer { invalidate(account.uid) }
        try base.insertAccount(account)
    }

    @discardableResult public func updateAccount(_ account: AccountRecord) throws -> Bool {
        defer { invalidate(account.uid) }
        return try base.updateAccount(account)
    }

    @discardableResult public func deleteAccount(uid: String) throws -> Bool {
        defer { invalidate(uid) }
        return try base.deleteAccount(uid: uid)
    }

    private func invalidate(_ uid: String) {
        state.withLock { state in
            state.generation += 1
            if state.slots.count >= capacity { evict(&state) }
            state.slots[ByteKey(uid)] = Slot(record: nil, generation: state.generation)
        }
    }

    /// Forgets `uid`'s record, changed by another node: the next read goes to the base store, and a read that
    /// began before now is not cached.
    public func forget(uid: String) { invalidate(uid) }

    /// Forgets every record, and refuses every read that began before now (a node that may have missed changes).
    public func forgetAll() {
        state.withLock { state in
            state.generation += 1
            state.floor = state.generation
            state.slots.removeAll()
        }
    }

    /// Drops half the slots (arbitrary ones: a dictionary keeps no order worth paying for here).
    private func evict(_ state: inout State) {
        var dropped = 0
        for (uid, slot) in state.slots where dropped < capacity / 2 {
            state.floor = max(state.floor, slot.generation)
            state.slots[uid] = nil
            dropped += 1
        }
    }

    public func account(emailKey: String) throws -> AccountRecord? { try base.account(emailKey: emailKey) }
    public func listAccounts(afterUID: String?, limit: Int) throws -> [AccountRecord] {
        try base.listAccounts(afterUID: afterUID, limit: limit)
    }
    public func listAccounts(emailKeyPrefix prefix: String, after: String?, limit: Int) throws -> [AccountRecord] {
        try base.listAccounts(emailKeyPrefix: prefix, after: after, limit: limit)
    }
    public func insertSession(_ session: SessionRecord, refreshTokenHash: [UInt8]) throws {
        try base.insertSession(session, refreshTokenHash: refreshTokenHash)
    }
    public func session(id: String) throws -> SessionRecord? { try base.session(id: id) }
    public func rotateRefreshToken(presentedHash: [UInt8], newHash: [UInt8], now: Int64, reuseGrace: Int64) throws
        -> RefreshRotation
    {
        try base.rotateRefreshToken(presentedHash: presentedHash, newHash: newHash, now: now, reuseGrace: reuseGrace)
    }
    public func revokeSession(id: String) throws { try base.revokeSession(id: id) }
    public func revokeSessions(uid: String, except exceptID: String?) throws {
        try base.revokeSessions(uid: uid, except: exceptID)
    }
    public func insertActionCode(_ code: ActionCodeRecord) throws { try base.insertActionCode(code) }
    public func consumeActionCode(hash: [UInt8], kind: ActionCodeKind, now: Int64) throws -> ActionCodeUse {
        try base.consumeActionCode(hash: hash, kind: kind, now: now)
    }
    public func unusedActionCode(hash: [UInt8]) throws -> ActionCodeRecord? { try base.unusedActionCode(hash: hash) }
    @discardableResult public func purge(now: Int64) throws -> Int { try base.purge(now: now) }
}
