import KuraAuth
import KuraCore
import KuraHTTP
import KuraModel

/// Kura's per-request context: the engine's facilities and who is calling.
public struct KuraContext: RequestContext {
    public let environment: RequestEnvironment
    /// Who is calling, resolved once per request before the handler runs, by the route's `CallerPolicy`
    /// (`CallerResolution`); `.anonymous` on routes that do not read `Authorization`.
    public internal(set) var caller: Caller = .anonymous
    /// `AuthService.revocationEpoch` as it was before the caller's ID token was checked; `nil` for anonymous
    /// callers and the admin key. Listen streams keep it to notice a revocation that raced the check.
    var callerEpoch: UInt64?
    /// The token the caller was resolved from: `Authorization: Bearer …`, or `?token=` on routes that take it there
    /// (listen streams); `nil` for anonymous callers and on routes that do not read `Authorization`. Read it here
    /// rather than from the request again: a listen stream re-checks it while it lives, and `/api/auth/me` answers
    /// from the token's cache entry.
    var credential: String?

    public init(environment: RequestEnvironment) { self.environment = environment }

    /// The signed-in user's claims (on `.user` routes, always there).
    func user() throws -> AuthClaims {
        guard case .user(let claims) = caller else {
            throw APIError.unauthenticated("this endpoint needs 'Authorization: Bearer <ID token>'")
        }
        return claims
    }

    /// Runs `work` on the worker pool and answers with its result on the request's loop; runs it at once when the
    /// handler already runs on the worker pool (its caller's ID token was verified there), so that a request
    /// hops at most once.
    func offload(_ work: @escaping @Sendable () throws -> Response) throws -> Response {
        if environment.eventLoop.inEventLoop { return environment.offload(work) }
        return try work()
    }
}
