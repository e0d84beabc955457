import KuraAuth
import KuraCore
import KuraHTTP
import KuraModel

/// Which callers an endpoint serves. Every route that reads `Authorization` is registered with one
/// (`CallerResolution.resolving`); its caller is then resolved once, before the handler runs, into
/// `KuraContext.caller`, by the one rule below (docs/api.md, "Who is calling").
///
/// | Authorization                       | .anyone                | .user (1)               | .admin                 |
/// |-------------------------------------|------------------------|-------------------------|------------------------|
/// | none                                | anonymous              | 401 UNAUTHENTICATED (2) | 401 UNAUTHENTICATED    |
/// | not Bearer <token> (Basic, Bearer)  | 401 UNAUTHENTICATED    | 401 UNAUTHENTICATED     | 401 UNAUTHENTICATED    |
/// | malformed, badly signed             | 401 INVALID_ID_TOKEN   | 401 INVALID_ID_TOKEN    | 401 INVALID_ID_TOKEN   |
/// | revoked session, deleted account    | 401 INVALID_ID_TOKEN   | 401 INVALID_ID_TOKEN    | 401 INVALID_ID_TOKEN   |
/// | disabled account                    | 401 INVALID_ID_TOKEN   | 401 INVALID_ID_TOKEN    | 401 INVALID_ID_TOKEN   |
/// | expired ID token                    | 401 TOKEN_EXPIRED      | 401 TOKEN_EXPIRED       | 401 TOKEN_EXPIRED      |
/// | unverified (requireVerifiedEmail)   | 403 EMAIL_NOT_VERIFIED | the user                | 403 EMAIL_NOT_VERIFIED |
/// | user                                | the user               | the user                | 403 PERMISSION_DENIED  |
/// | user with the admin claim           | the user               | the user                | the administrator      |
/// | admin key                           | the administrator      | 401 UNAUTHENTICATED     | the administrator      |
///
/// (1) and `.userOrAnonymous`, which differs in one cell: (2) anonymous.
///
/// A disabled account's token is answered as a revoked one (disabling revokes every session): the clients take a
/// 401 `INVALID_ID_TOKEN` as "refresh the token", and the refresh answers 403 `USER_DISABLED` and ends the session,
/// as Firebase's token refresh does.
///
/// Routes registered without a policy (health, the landing page, the SDK files, hosting, the JWKS, sign-up,
/// sign-in, refresh, action codes, password reset, the action page) never read `Authorization`: every input is
/// answered as none is.
public enum CallerPolicy: Sendable {
    /// Documents, queries, commits, listen streams: anonymous callers (the rules decide), users admitted to data,
    /// the administrator.
    case anyone
    /// The account's own endpoints (`/api/auth/me`, sign-out): a user's ID token, verified address or not.
    case user
    /// `POST /api/auth/verify-email`: a user's ID token, or nobody (then the request names the address).
    case userOrAnonymous
    /// `/api/admin/*`: the admin key, or a user with the `admin` claim whose address is verified when it must be.
    case admin

    /// Throws unless `caller` may call an endpoint of this policy. `admitted` says the caller is known to be
    /// admitted to data already (from the loop cache, which holds only such users).
    func check(_ caller: Caller, admitted: Bool, requireVerifiedEmail: Bool) throws {
        switch (self, caller) {
        case (.anyone, .anonymous), (.userOrAnonymous, .anonymous), (.anyone, .admin), (.admin, .admin),
            (.user, .user), (.userOrAnonymous, .user):
            return
        case (.anyone, .user(let claims)):
            if !admitted { try Self.admit(claims, requireVerifiedEmail: requireVerifiedEmail) }
        case (.admin, .user(let claims)):
            if !admitted { try Self.admit(claims, requireVerifiedEmail: requireVerifiedEmail) }
            guard claims.isAdmin else { throw APIError.permissionDenied("this endpoint is for administrators") }
        case (.user, .anonymous):
            throw APIError.unauthenticated("this endpoint needs 'Authorization: Bearer <ID token>'")
        case (.admin, .anonymous):
            throw APIError.unauthenticated("this endpoint needs 'Authorization: Bearer <admin key or admin ID token>'")
        case (.user, .admin), (.userOrAnonymous, .admin):
            throw APIError.unauthenticated("this endpoint needs a user's ID token, not the admin key")
        }
    }

    /// 403 `EMAIL_NOT_VERIFIED` for a user whose address is not verified (as the account is now) while
    /// `auth.requireVerifiedEmail` is on: such a user reaches no data and no admin endpoint.
    static func admit(_ claims: AuthClaims, requireVerifiedEmail: Bool) throws {
        guard requireVerifiedEmail, !claims.emailVerified else { return }
        throw APIError.emailNotVerified("the email address has not been verified; data is reachable once it is")
    }
}

/// Turns a request's credentials into its `Caller`, once per request: from this event loop's cache
/// (`LoopCallerCache`) when it knows the `Authorization` value, else from memory (the admin key, the shared token
/// cache) on the loop, else by verifying the ID token on the worker pool, once; the handler then runs where the
/// caller became known. Errors of the token check are answered as `verifiedUser` names them, on every endpoint
/// alike.
public struct CallerResolution: Sendable {
    let adminKey: AdminKey
    let auth: AuthService
    /// `auth.requireVerifiedEmail`, read once.
    private let requireVerified: Bool
    /// Users' callers by `Authorization` value, per event loop.
    private let loopCallers: LoopLocal<LoopCallerCache>

    init(adminKey: AdminKey, auth: AuthService, eventLoops: Int, callersPerLoop: Int) {
        self.adminKey = adminKey
        self.auth = auth
        requireVerified = auth.configuration.requireVerifiedEmail
        loopCallers = LoopLocal(loops: eventLoops) { LoopCallerCache(capacity: callersPerLoop) }
    }

    /// `handler`, run with `context.caller` resolved for `policy`. With `tokenInQuery`, a request without
    /// `Authorization` may carry the token as `?token=` (browsers' EventSource cannot set headers).
    func resolving(
        _ policy: CallerPolicy, tokenInQuery: Bool = false, _ handler: @escaping Router<KuraContext>.Handler
    ) -> Router<KuraContext>.Handler {
        let resolution = self
        return { request, context in try resolution.respond(request, context, policy, tokenInQuery, handler) }
    }

    /// The routes serving `policy`: each registered through the result (`forAdmins.get("/api/admin/…") { … }`)
    /// runs with its caller resolved as `resolving(policy, tokenInQuery:)` resolves it.
    func routes(_ policy: CallerPolicy, tokenInQuery: Bool = false, on router: Router<KuraContext>) -> PolicyRoutes {
        PolicyRoutes(router: router, callers: self, policy: policy, tokenInQuery: tokenInQuery)
    }

    private func respond(
        _ request: Request, _ context: KuraContext, _ policy: CallerPolicy, _ tokenInQuery: Bool,
        _ handler: @escaping Router<KuraContext>.Handler
    ) throws -> Response {
        let header = request.headers["Authorization"]
        // The hot path: a user seen on this loop, answered from loop-local memory (no parsing, no lock, no hop).
        if let header, let entry = loopEntry(header: header, loop: context.environment.eventLoop) {
            try policy.check(entry.caller, admitted: true, requireVerifiedEmail: requireVerified)
            var context = context
            context.caller = entry.caller
            context.callerEpoch = entry.epoch
            context.credential = request.bearerToken
            return try handler(request, context)
        }
        guard let token = try Self.credential(request, header: header, tokenInQuery: tokenInQuery) else {
            try policy.check(.anonymous, admitted: false, requireVerifiedEmail: requireVerified)
            return try handler(request, context)
        }
        if adminKey.matches(token) {
            try policy.check(.admin, admitted: false, requireVerifiedEmail: requireVerified)
            var context = context
            context.caller = .admin
            context.credential = token
            return try handler(request, context)
        }
        if let verification = auth.cachedVerification(token: token) {
            let caller = Caller.user(verification.claims)
            try policy.check(caller, admitted: false, requireVerifiedEmail: requireVerified)
            if let header, !requireVerified || verification.claims.emailVerified {
                loopCallers.withValue(on: context.environment.eventLoop) {
                    $0.insert(header: header, verification: verification)
                }
            }
            var context = context
            context.caller = caller
            context.callerEpoch = verification.epoch
            context.credential = token
            return try handler(request, context)
        }
        // Read before the check, so that a revocation racing it is still seen by whoever keeps the caller.
        let epoch = auth.revocationEpoch
        let auth = self.auth
        let requireVerified = self.requireVerified
        return context.environment.offload {
            let caller = Caller.user(try Self.verifiedUser(token, auth: auth))
            try policy.check(caller, admitted: false, requireVerifiedEmail: requireVerified)
            var context = context
            context.caller = caller
            context.callerEpoch = epoch
            context.credential = token
            return try handler(request, context)
        }
    }

    /// The claims of the ID token `token` (blocking). 401 `INVALID_ID_TOKEN` for a malformed, badly signed or
    /// revoked token, a deleted account's and a disabled account's; 401 `TOKEN_EXPIRED` for an expired one.
    static func verifiedUser(_ token: String, auth: AuthService) throws -> AuthClaims {
        do {
            return try auth.verifyIDToken(token)
        } catch let error as APIError where error.code == .userDisabled {
            throw APIError(
                .invalidIDToken, status: 401, message: "the account has been disabled; its ID tokens no longer work")
        }
    }

    /// The token a request presents: `nil` for none (anonymous); 401 `UNAUTHENTICATED` for an `Authorization`
    /// that is not `Bearer <token>`: a client that sends credentials means to be someone, not anonymous.
    static func credential(_ request: Request, header: String?, tokenInQuery: Bool) throws -> String? {
        guard header != nil else {
            guard tokenInQuery, let token = request.query("token") else { return nil }
            guard !token.isEmpty else { throw APIError.unauthenticated("'token' is empty") }
            return token
        }
        guard let token = request.bearerToken, !token.isEmpty else {
            throw APIError.unauthenticated("use 'Authorization: Bearer <ID token or admin key>', or none")
        }
        return token
    }

    /// The admitted user whose `Authorization` value is `header`, from this loop's cache (nothing off the loops).
    private func loopEntry(header: String, loop: EventLoop) -> LoopCallerCache.Entry? {
        let entry = loopCallers.withValue(on: loop) { $0.entry(header: header) } ?? nil
        guard let entry, entry.validity.holds(auth.clock), entry.epoch == auth.revocationEpoch else { return nil }
        return entry
    }

    // MARK: Outside a request

    /// The caller `bearerToken` names under `.anyone`, verifying an ID token if needed (blocking: call it on the
    /// worker pool). For listen streams' periodic re-checks and for tests.
    public func caller(bearerToken: String?) throws -> Caller {
        if let caller = try cachedCaller(bearerToken: bearerToken) { return caller }
        let caller = Caller.user(try Self.verifiedUser(bearerToken ?? "", auth: auth))
        try CallerPolicy.anyone.check(caller, admitted: false, requireVerifiedEmail: requireVerified)
        return caller
    }

    /// `caller(bearerToken:)` from memory only: `nil` means an ID token that must be verified first.
    public func cachedCaller(bearerToken: String?) throws -> Caller? {
        guard let token = bearerToken else { return .anonymous }
        if adminKey.matches(token) { return .admin }
        guard let claims = auth.cachedClaims(token: token) else { return nil }
        try CallerPolicy.anyone.check(.user(claims), admitted: false, requireVerifiedEmail: requireVerified)
        return .user(claims)
    }
}

/// Routes registered with one `CallerPolicy` (`CallerResolution.routes`), so that a route file names its policy
/// once instead of once per route.
struct PolicyRoutes {
    let router: Router<KuraContext>
    let callers: CallerResolution
    let policy: CallerPolicy
    let tokenInQuery: Bool

    func get(_ pattern: String, _ handler: @escaping Router<KuraContext>.Handler) { on(.GET, pattern, handler) }
    func post(_ pattern: String, _ handler: @escaping Router<KuraContext>.Handler) { on(.POST, pattern, handler) }
    func put(_ pattern: String, _ handler: @escaping Router<KuraContext>.Handler) { on(.PUT, pattern, handler) }
    func patch(_ pattern: String, _ handler: @escaping Router<KuraContext>.Handler) { on(.PATCH, pattern, handler) }
    func delete(_ pattern: String, _ handler: @escaping Router<KuraContext>.Handler) { on(.DELETE, pattern, handler) }

    private func on(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping Router<KuraContext>.Handler) {
        router.on(method, pattern, callers.resolving(policy, tokenInQuery: tokenInQuery, handler))
    }
}
