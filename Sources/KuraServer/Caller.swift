import KuraAuth
import KuraCore
import KuraHTTP
import KuraModel
import KuraRules

/// Who is making a request: the administrator (admin key), a signed-in user (ID token), or nobody.
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

/// Turns `Authorization: Bearer …` into a `Caller`. Token checks may read the account database, so this runs on
/// the worker pool.
struct Authenticator: Sendable {
    let adminKey: AdminKey
    let auth: AuthService

    func caller(_ request: Request) throws -> Caller {
        guard let token = request.bearerToken else { return .anonymous }
        if adminKey.matches(token) { return .admin }
        return .user(try auth.verifyIDToken(token))
    }

    /// The signed-in user; 401 `UNAUTHENTICATED` for anonymous callers (the admin key is not a user).
    func user(_ request: Request) throws -> AuthClaims {
        guard request.bearerToken != nil else {
            throw APIError.unauthenticated("this endpoint needs 'Authorization: Bearer <ID token>'")
        }
        guard case .user(let claims) = try caller(request) else {
            throw APIError.unauthenticated("this endpoint needs a user's ID token, not the admin key")
        }
        return claims
    }

    /// 401 without credentials, 403 for a user without the `admin` claim (as the account has it now), and 403
    /// `EMAIL_NOT_VERIFIED` for an unverified one when `auth.requireVerifiedEmail` is on.
    func requireAdmin(_ request: Request) throws {
        let caller = try caller(request)
        guard case .anonymous = caller else {
            guard caller.isAdmin else { throw APIError.permissionDenied("this endpoint is for administrators") }
            if case .user(let claims) = caller, auth.configuration.requireVerifiedEmail, !claims.emailVerified {
                throw APIError.emailNotVerified("the email address has not been verified")
            }
            return
        }
        throw APIError.unauthenticated("this endpoint needs 'Authorization: Bearer <admin key or admin ID token>'")
    }
}
