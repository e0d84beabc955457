import KuraCore
import KuraModel

/// Administrator operations (the routes check the admin key or an `admin` claim first).
extension AuthService {
    /// Creates an account without signing it in (`kura admin create-user`). The address is marked verified unless
    /// told otherwise (an administrator vouches for it); `admin` sets the custom claim `admin: true`.
    /// `uid` chooses the account's id (1–128 characters, Firebase's bounds; 400 `ALREADY_EXISTS` when taken);
    /// by default a random one is made. `disabled` creates the account disabled.
    public func createUser(
        email: String, password: String, displayName: String? = nil, admin: Bool = false, emailVerified: Bool = true,
        uid: String? = nil, disabled: Bool = false
    ) throws -> AuthUser {
        let address = try EmailAddress(email)
        try validateNewPassword(password)
        if let uid {
            guard (1...128).contains(uid.count), !uid.contains("/") else {
                throw APIError.badRequest("a uid is 1 to 128 characters, without '/'")
            }
            guard try store.account(uid: uid) == nil else {
                throw APIError(.alreadyExists, status: 400, message: "the uid is already in use")
            }
        }
        let account = try insertAccount(
            address: address, password: password, displayName: displayName, emailVerified: emailVerified,
            customClaims: admin ? ["admin": true] : JSONObject(), uid: uid, disabled: disabled)
        return AuthUser(account)
    }

    /// A new action code of `kind` (`.verifyEmail` or `.passwordReset`) for the account with address `email`,
    /// without mailing it: for an administrator who sends the link through their own channel (Firebase's
    /// `generateEmailVerificationLink`, `generatePasswordResetLink`). Returns the code and the account's address.
    /// Throws `INVALID_EMAIL`, `USER_NOT_FOUND`.
    public func adminActionCode(_ kind: ActionCodeKind, email: String) throws -> (code: String, email: String) {
        let address = try EmailAddress(email)
        guard let account = try store.account(emailKey: address.key) else { throw APIError.userNotFound }
        return (try makeActionCode(kind, uid: account.uid, email: account.email), account.email)
    }

    /// The account with address `email`, or `nil`. Throws `INVALID_EMAIL`.
    public func user(email: String) throws -> AuthUser? {
        try store.account(emailKey: EmailAddress(email).key).map(AuthUser.init)
    }

    /// Accounts whose address starts with `prefix` (compared lower-cased, as addresses are), ordered by address,
    /// `pageSize` (1–1000) at a time; pass `nextPageToken` back for the next page.
    public func listUsers(emailPrefix prefix: String, pageToken: String? = nil, pageSize: Int = 100) throws -> UserPage
    {
        let size = min(max(pageSize, 1), 1000)
        let key = prefix.asciiLowercased()
        var after: String? = nil
        if let pageToken, !pageToken.isEmpty {
            guard let bytes = Base64.decode(pageToken, .urlSafe), let last = String(validating: bytes, as: UTF8.self),
                last.utf8.starts(with: key.utf8)
            else {
                throw APIError.badRequest("invalid page token")
            }
            after = last
        }
        var records = try store.listAccounts(emailKeyPrefix: key, after: after, limit: size + 1)
        var next: String? = nil
        if records.count > size {
            records.removeLast()
            next = Base64.encode(Array(records.last!.emailKey.utf8), .urlSafe)
        }
        return UserPage(users: records.map(AuthUser.init), nextPageToken: next)
    }

    /// Accounts ordered by uid, `pageSize` (1–1000) at a time; pass `nextPageToken` back for the next page.
    public func listUsers(pageToken: String? = nil, pageSize: Int = 100) throws -> UserPage {
        let size = min(max(pageSize, 1), 1000)
        var after: String? = nil
        if let pageToken, !pageToken.isEmpty {
            guard let bytes = Base64.decode(pageToken, .urlSafe), let uid = String(validating: bytes, as: UTF8.self)
            else {
                throw APIError.badRequest("invalid page token")
            }
            after = uid
        }
        var records = try store.listAccounts(afterUID: after, limit: size + 1)
        var next: String? = nil
        if records.count > size {
            records.removeLast()
            next = Base64.encode(Array(records.last!.uid.utf8), .urlSafe)
        }
        return UserPage(users: records.map(AuthUser.init), nextPageToken: next)
    }

    /// One account. Throws `USER_NOT_FOUND`.
    public func user(uid: String) throws -> AuthUser {
        guard let account = try store.account(uid: uid) else { throw APIError.userNotFound }
        return AuthUser(account)
    }

    /// Changes an account. Takes effect on the user's next request in this process: ID tokens are checked against
    /// the account as it is now, so disabling, new custom claims, a new email or a withdrawn verification apply to
    /// tokens already issued, and the user's listen streams end (`Revocation`). A password change also revokes
    /// every session. New ID tokens carry the new claims.
    /// Throws `USER_NOT_FOUND`, `INVALID_CLAIMS`, `INVALID_EMAIL`, `EMAIL_EXISTS`, `WEAK_PASSWORD`.
    public func updateUser(uid: String, _ update: AdminUserUpdate) throws -> AuthUser {
        guard var account = try store.account(uid: uid) else { throw APIError.userNotFound }
        let before = account
        if let claims = update.customClaims {
            try Self.validateCustomClaims(claims)
            account.customClaims = claims
        }
        if let disabled = update.disabled { account.disabled = disabled }
        if let verified = update.emailVerified { account.emailVerified = verified }
        if let displayName = update.displayName {
            try validateDisplayName(displayName)
            account.displayName = displayName
        }
        if let email = update.email {
            let address = try EmailAddress(email)
            account.email = address.value
            account.emailKey = address.key
        }
        if let password = update.password {
            try validateNewPassword(password)
            account.passwordHash = try hasher.hash(password)
        }
        guard try store.updateAccount(account) else { throw APIError.userNotFound }
        if update.password != nil { try store.revokeSessions(uid: uid, except: nil) }
        let narrowed =
            update.password != nil || (account.disabled && !before.disabled)
            || account.customClaims != before.customClaims || account.email != before.email
            || (before.emailVerified && !account.emailVerified)
        if narrowed {
            revoke(Revocation(uid: uid))
        } else {
            accountChanged(uid: uid)
        }
        return AuthUser(account)
    }

    /// Deletes an account with its sessions and codes. Throws `USER_NOT_FOUND`.
    public func deleteUser(uid: String) throws {
        guard try store.deleteAccount(uid: uid) else { throw APIError.userNotFound }
        revoke(Revocation(uid: uid))
    }

    /// Signs the user out everywhere. Throws `USER_NOT_FOUND`.
    public func revokeSessions(uid: String) throws {
        guard try store.account(uid: uid) != nil else { throw APIError.userNotFound }
        try store.revokeSessions(uid: uid, except: nil)
        revoke(Revocation(uid: uid))
    }

    /// Custom claims: at most 1000 bytes of JSON (Firebase's limit), none of `AuthClaims.reservedNames`.
    static func validateCustomClaims(_ claims: JSONObject) throws {
        if let reserved = claims.keys.first(where: AuthClaims.reservedNames.contains) {
            throw APIError.invalidClaims("the claim name \(reserved) is reserved")
        }
        guard JSONValue.object(claims).jsonBytes.count <= 1000 else {
            throw APIError.invalidClaims("custom claims exceed 1000 bytes")
        }
    }
}
