import KuraCore
import KuraModel

/// An account as stored.
public struct AccountRecord: Sendable, Equatable {
    public var uid: String
    /// Normalised address (see `EmailAddress`).
    public var email: String
    /// Lower-cased address: the unique key.
    public var emailKey: String
    public var emailVerified: Bool
    public var displayName: String?
    /// Encoded argon2id hash (`crypto_pwhash_str`).
    public var passwordHash: String
    public var disabled: Bool
    public var customClaims: JSONObject
    /// Microseconds since the epoch.
    public var createTime: Int64
    /// Microseconds since the epoch, `nil` before the first sign-in.
    public var lastSignInTime: Int64?

    public init(
        uid: String, email: String, emailKey: String, emailVerified: Bool, displayName: String?, passwordHash: String,
        disabled: Bool, customClaims: JSONObject, createTime: Int64, lastSignInTime: Int64?
    ) {
        self.uid = uid
        self.email = email
        self.emailKey = emailKey
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.passwordHash = passwordHash
        self.disabled = disabled
        self.customClaims = customClaims
        self.createTime = createTime
        self.lastSignInTime = lastSignInTime
    }
}

/// A session: one refresh-token family. Each refresh replaces the current refresh token (and bumps `generation`);
/// presenting a replaced one revokes the whole session, unless it is the one replaced last and within the reuse
/// grace (`AuthConfiguration.refreshTokenReuseGrace`).
public struct SessionRecord: Sendable, Equatable {
    /// The family id, also the ID tokens' `sid` claim.
    public var id: String
    public var uid: String
    /// Times the refresh token was rotated.
    public var generation: Int64
    /// `auth_time` (seconds): when the password was last typed for this session.
    public var authTime: Int64
    /// Microseconds since the epoch.
    public var createTime: Int64
    public var revoked: Bool

    public init(id: String, uid: String, generation: Int64, authTime: Int64, createTime: Int64, revoked: Bool) {
        self.id = id
        self.uid = uid
        self.generation = generation
        self.authTime = authTime
        self.createTime = createTime
        self.revoked = revoked
    }
}

/// What an action code is for; a code only works for its kind.
public enum ActionCodeKind: String, Sendable {
    case verifyEmail = "VERIFY_EMAIL"
    case passwordReset = "PASSWORD_RESET"
    case changeEmail = "VERIFY_AND_CHANGE_EMAIL"
}

/// A single-use action code as stored (by hash).
public struct ActionCodeRecord: Sendable, Equatable {
    /// SHA-256 of the code.
    public var hash: [UInt8]
    public var kind: ActionCodeKind
    public var uid: String
    /// The address the code was sent to (the new address for `.changeEmail`).
    public var email: String
    /// Seconds since the epoch.
    public var expireTime: Int64

    public init(hash: [UInt8], kind: ActionCodeKind, uid: String, email: String, expireTime: Int64) {
        self.hash = hash
        self.kind = kind
        self.uid = uid
        self.email = email
        self.expireTime = expireTime
    }
}

/// Outcome of presenting a refresh token.
public enum RefreshRotation: Sendable, Equatable {
    /// The token was current: it is replaced by the new hash; the session as updated.
    case rotated(SessionRecord)
    /// The token was already rotated: the session has been revoked (reuse detection).
    case reused(SessionRecord)
    /// Unknown token, or its session is revoked.
    case invalid
}

/// Outcome of presenting an action code.
public enum ActionCodeUse: Sendable, Equatable {
    /// Valid: now marked used.
    case consumed(ActionCodeRecord)
    case expired
    /// Unknown, already used, or of another kind.
    case invalid
}

/// Persistence of accounts, sessions (refresh-token families) and action codes: everything `AuthService` keeps
/// beyond this process. Implementations are thread-safe and make each method atomic, also across processes (or
/// nodes) sharing one database: a refresh token or action code spent through one instance is spent for all.
/// Unique-email violations throw `APIError` `EMAIL_EXISTS`; other failures are storage errors. The SQLite engine's
/// is `SQLiteAccountStore` (KuraSQLiteEngine); `Tests/KuraEngineConformanceTests` holds every engine to this contract.
public protocol AccountStore: Sendable {
    func insertAccount(_ account: AccountRecord) throws
    func account(uid: String) throws -> AccountRecord?
    func account(emailKey: String) throws -> AccountRecord?
    /// Replaces the row with `account.uid`; returns `false` when there is none.
    @discardableResult func updateAccount(_ account: AccountRecord) throws -> Bool
    /// Deletes the account with its sessions and action codes; `false` when there was none.
    @discardableResult func deleteAccount(uid: String) throws -> Bool
    /// Up to `limit` accounts ordered by uid, starting after `afterUID`.
    func listAccounts(afterUID: String?, limit: Int) throws -> [AccountRecord]
    /// Up to `limit` accounts whose email key starts with `prefix` (bytes), ordered by email key (bytes), starting
    /// after the email key `after`.
    func listAccounts(emailKeyPrefix prefix: String, after: String?, limit: Int) throws -> [AccountRecord]

    /// Stores a new session whose current refresh token hashes to `refreshTokenHash`.
    func insertSession(_ session: SessionRecord, refreshTokenHash: [UInt8]) throws
    func session(id: String) throws -> SessionRecord?
    /// Atomically checks `presentedHash` and, when current, replaces it with `newHash`. The token spent last in its
    /// session also counts as current for `reuseGrace` microseconds after it was spent (a client retrying a refresh
    /// whose answer it lost); any other spent token revokes the session. `now`: microseconds since the epoch.
    func rotateRefreshToken(presentedHash: [UInt8], newHash: [UInt8], now: Int64, reuseGrace: Int64) throws
        -> RefreshRotation
    func revokeSession(id: String) throws
    /// Revokes every session of `uid` except `exceptID`.
    func revokeSessions(uid: String, except exceptID: String?) throws

    func insertActionCode(_ code: ActionCodeRecord) throws
    /// Atomically checks and consumes a code of `kind` at time `now` (seconds).
    func consumeActionCode(hash: [UInt8], kind: ActionCodeKind, now: Int64) throws -> ActionCodeUse
    /// The unused code with this hash, of any kind, expired or not, without using it; `nil` when unknown or used.
    func unusedActionCode(hash: [UInt8]) throws -> ActionCodeRecord?
    /// Deletes expired action codes and revoked sessions; returns how many rows went.
    @discardableResult func purge(now: Int64) throws -> Int
}
