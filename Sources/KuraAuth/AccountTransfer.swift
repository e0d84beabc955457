import KuraCore
import KuraModel

/// What `kura export` and `kura import` need from an account store beyond `AccountStore`: every account from one
/// consistent snapshot, and many accounts written at once, exactly as they were (uid, password hash, times).
/// Sessions, refresh tokens and action codes are not transferred: like Firebase's `auth:export`, a move keeps the
/// accounts and their passwords, and users sign in again (docs/scaling.md, "Moving an app between engines").
public protocol AccountTransfer: Sendable {
    /// Runs `body` with a reader of one snapshot of every account; the reader is only valid inside `body`.
    func withAccountSnapshot<T>(_ body: (any AccountSnapshot) throws -> T) throws -> T

    /// Stores `accounts` as they are, in one transaction. An account whose uid exists already fails the whole
    /// transaction with 409 `ALREADY_EXISTS`, unless `replacing`, which overwrites it (its sessions and action codes are deleted). An
    /// address that belongs to another account is 400 `EMAIL_EXISTS`, and nothing is stored.
    func importAccounts(_ accounts: [AccountRecord], replacing: Bool) throws
}

/// A consistent view of every account, for `AccountTransfer.withAccountSnapshot`.
public protocol AccountSnapshot {
    /// How many accounts the snapshot holds.
    func accountCount() throws -> Int64

    /// Up to `limit` accounts ordered by uid (UTF-8 bytes), after `afterUID` (`nil`: from the first).
    func accounts(afterUID: String?, limit: Int) throws -> [AccountRecord]
}

extension AccountRecord {
    /// The longest uid an imported account may have (Kura makes 28-character ones; Firebase's are at most 128).
    public static let maxUIDBytes = 128

    /// Checks what `AuthService` would have checked when the account was made, for an account read from an
    /// export: a uid of 1–128 printable ASCII bytes without `/`, a normalised address and its key, an argon2id
    /// hash in `crypto_pwhash_str` form whose parameters are within `bounds`, the display-name and custom-claim
    /// limits, and times that make sense. Throws a 400 `APIError` whose message says which value is wrong.
    public func validateForImport(bounds: Argon2Bounds = Argon2Bounds()) throws {
        let uidBytes = Array(uid.utf8)
        guard (1...Self.maxUIDBytes).contains(uidBytes.count),
            uidBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") })
        else {
            throw APIError.badRequest("uid must be 1-\(Self.maxUIDBytes) printable ASCII characters without '/'")
        }
        let address = try EmailAddress(email)
        guard address.value == email else {
            throw APIError.badRequest("email is not in its normalised form (expected \(address.value))")
        }
        guard address.key == emailKey else { throw APIError.badRequest("emailKey does not match email") }
        // `crypto_pwhash_str` output: `$argon2id$v=19$m=…,t=…,p=…$salt$hash`, below crypto_pwhash_STRBYTES (128),
        // with a cost sign-in will agree to verify.
        guard passwordHash.utf8.count < 128 else {
            throw APIError.badRequest("passwordHash is longer than 127 bytes (crypto_pwhash_STRBYTES)")
        }
        if let problem = bounds.problem(with: passwordHash) {
            throw APIError.badRequest("passwordHash \(problem)")
        }
        if let displayName {
            guard displayName.count <= 256,
                !displayName.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw APIError.badRequest("displayName must be at most 256 characters, without control characters")
            }
        }
        try AuthService.validateCustomClaims(customClaims)
        if let lastSignInTime, lastSignInTime < createTime {
            throw APIError.badRequest("lastSignInTime is before createTime")
        }
    }
}
