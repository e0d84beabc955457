import KuraCore
import KuraRealtime
import KuraRules
import KuraStore

/// Realtime's view of authentication and the security rules, on top of `DataAccess`: the administrator bypasses
/// the rules; users (ID token) and anonymous callers are checked like `GET /api/docs` (`get`) and `POST
/// /api/query` (`list`, per document unless the rules decide for the whole collection).
struct RealtimeAccess: ListenAccess {
    let access: DataAccess

    /// What a principal's `context` holds.
    struct Credentials: Sendable {
        let caller: Caller
        /// The ID token, checked again periodically; `nil` for the administrator and anonymous callers.
        let token: String?
    }

    func principal(bearerToken: String?) throws -> ListenPrincipal {
        principal(try access.caller(bearerToken: bearerToken), bearerToken: bearerToken)
    }

    /// The principal a token names when that is known from memory (the admin key, no token, a recently verified
    /// ID token); `nil` means "verify on the worker pool". Safe on an event loop.
    func cachedPrincipal(bearerToken: String?) -> ListenPrincipal? {
        access.cachedCaller(bearerToken: bearerToken).map { principal($0, bearerToken: bearerToken) }
    }

    private func principal(_ caller: Caller, bearerToken: String?) -> ListenPrincipal {
        switch caller {
        case .admin:
            return ListenPrincipal(
                identity: "admin", bypassesRules: true, expiresAt: nil,
                context: Credentials(caller: caller, token: nil))
        case .user(let claims):
            return ListenPrincipal(
                identity: "user:" + claims.uid, bypassesRules: false, expiresAt: claims.expiresAt,
                context: Credentials(caller: caller, token: bearerToken))
        case .anonymous:
            return ListenPrincipal(
                identity: "anonymous", bypassesRules: false, expiresAt: nil,
                context: Credentials(caller: caller, token: nil))
        }
    }

    func isStillValid(_ principal: ListenPrincipal) -> Bool {
        guard let credentials = principal.context as? Credentials, let token = credentials.token else { return true }
        // Through the token cache: a revocation in this process is seen at once, one elsewhere within the
        // cache's re-check interval.
        guard case .user(let claims)? = try? access.caller(bearerToken: token) else { return false }
        return claims.uid == credentials.caller.ruleAuth?.uid
    }

    func mayRead(_ principal: ListenPrincipal, path: DocumentPath, document: Document?, listing: Bool) -> Bool {
        guard let caller = caller(principal) else { return false }
        if case .admin = caller { return true }
        let decision = try? access.decide(
            caller, listing ? .list : .get, path: path.segments,
            resource: document.map { DataAccess.ruleDocument($0.path, $0.fields) }, requestResource: nil,
            time: Timestamp.nowMicros(), rules: access.rules.current.ruleSet, onLoop: false)
        return decision?.isAllowed ?? false
    }

    func listDecision(_ principal: ListenPrincipal, collection: CollectionPath) -> Bool? {
        guard let caller = caller(principal) else { return false }
        if case .admin = caller { return true }
        var filter = ListFilter(access: access, caller: caller, rules: access.rules.current.ruleSet)
        do { return try filter.decision(for: collection) } catch { return nil }
    }

    private func caller(_ principal: ListenPrincipal) -> Caller? {
        (principal.context as? Credentials)?.caller
    }
}
