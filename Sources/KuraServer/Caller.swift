import KuraAuth
import KuraRules

/// Who is making a request: the administrator (admin key), a signed-in user (ID token), or nobody. Resolved once
/// per request into `KuraContext.caller` (`CallerResolution`).
public enum Caller: Sendable {
    /// `Authorization: Bearer <admin key>`: bypasses the security rules.
    case admin
    /// `Authorization: Bearer <ID token>`: the token's verified claims, with `email`, `email_verified` and the
    /// custom claims taken from the account as it is now (`AuthService.verifyIDToken`).
    case user(AuthClaims)
    /// No `Authorization` header: `request.auth == null` in the rules.
    case anonymous

    /// The administrator, or a user whose token carries the `admin` claim.
    public var isAdmin: Bool {
        switch self {
        case .admin: true
        case .user(let claims): claims.isAdmin
        case .anonymous: false
        }
    }

    /// `request.auth` as the rules see it: the uid and every token claim (`email`, `email_verified`, custom
    /// claims such as `admin`…); `nil` for anonymous callers and the administrator (whom rules never see).
    public var ruleAuth: RuleAuth? {
        guard case .user(let claims) = self else { return nil }
        // Built only if a rule reads the token: most rules look at the uid alone, and this is on every request.
        return RuleAuth(uid: claims.uid) { claims.json.objectValue ?? [:] }
    }
}
