import KuraAuth
import KuraCore
import KuraModel
import KuraRealtime
import KuraRules
import KuraStore

/// Realtime's view of authentication and the security rules, on top of `DataAccess`: the administrator bypasses
/// the rules; users (ID token) and anonymous callers are checked like `GET /api/docs` (`get`) and `POST
/// /api/query` (`list`, per document unless the rules decide for the whole collection).
struct RealtimeAccess: ListenAccess {
    let access: DataAccess
    /// Checks a stream's token again while it lives.
    let callers: CallerResolution

    /// What a principal's `context` holds.
    struct Credentials: Sendable {
        let caller: Caller
        /// The ID token, checked again periodically; `nil` for the administrator and anonymous callers.
        let token: String?
    }

    /// The principal of a request whose caller is resolved (`context.caller`), presenting `bearerToken`. A user's
    /// principal keeps the revocation epoch read before the token was checked, so that a revocation racing the
    /// check is caught when the stream opens.
    func principal(_ context: KuraContext, bearerToken: String?) -> ListenPrincipal {
        principal(context.caller, bearerToken: bearerToken, epoch: context.callerEpoch ?? revocationEpoch)
    }

    var revocationEpoch: UInt64 { access.auth.revocationEpoch }

    private func principal(_ caller: Caller, bearerToken: String?, epoch: UInt64) -> ListenPrincipal {
        switch caller {
        case .admin:
            return ListenPrincipal(
                identity: "admin", bypassesRules: true, expiresAt: nil,
                context: Credentials(caller: caller, token: nil), revocationEpoch: epoch)
        case .user(let claims):
            // The rules see the uid and the token's claims (`request.auth`), nothing else of the caller: equal
            // claims, equal decisions. Claims that encode differently only miss a chance to share.
            return ListenPrincipal(
                identity: "user:" + claims.uid, bypassesRules: false, expiresAt: claims.expiresAt,
                context: Credentials(caller: caller, token: bearerToken), revocationEpoch: epoch,
                rulesIdentity: "user:" + claims.uid + "\n" + String(decoding: claims.json.jsonBytes, as: UTF8.self))
        case .anonymous:
            return ListenPrincipal(
                identity: "anonymous", bypassesRules: false, expiresAt: nil,
                context: Credentials(caller: caller, token: nil), revocationEpoch: epoch, rulesIdentity: "anonymous")
        }
    }

    /// Whether a revocation `revocation` ends the stream of `principal`.
    static func isRevoked(_ principal: ListenPrincipal, by revocation: Revocation) -> Bool {
        guard let credentials = principal.context as? Credentials, case .user(let claims) = credentials.caller else {
            return false
        }
        return revocation.covers(uid: claims.uid, sessionID: claims.sessionID)
    }

    func isStillValid(_ principal: ListenPrincipal) -> Bool {
        guard let credentials = principal.context as? Credentials, let token = credentials.token,
            case .user(let held) = credentials.caller
        else { return true }
        // Through the token cache: a revocation in this process is seen at once, one elsewhere within the
        // cache's re-check interval. The claims the rules see must be those the stream was opened with: changed
        // claims (another process changed the account) end the stream, and the client reopens it with them.
        guard case .user(let claims)? = try? callers.caller(bearerToken: token) else { return false }
        return claims.uid.bytesEqual(held.uid) && claims.customClaims == held.customClaims
            && claims.emailVerified == held.emailVerified && claims.email.bytesEqual(held.email)
    }

    func mayRead(_ principal: ListenPrincipal, path: DocumentPath, document: Document?, listing: Bool) -> Bool {
        guard let caller = caller(principal) else { return false }
        if case .admin = caller { return true }
        let decision = try? access.decide(
            caller, listing ? .list : .get, path: path.segments,
            resource: document.map { DataAccess.ruleDocument($0.path, $0.fields) }, requestResource: nil,
            time: WallClock.nowMicros(), rules: access.rules.current.ruleSet, onLoop: false)
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
