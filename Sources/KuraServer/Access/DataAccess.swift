import KuraAuth
import KuraCore
import KuraHTTP
import KuraRules
import KuraStore

/// Who may read and write which documents: resolves the caller of a request and asks the security rules in
/// force. The administrator (admin key) bypasses the rules; users (ID token) and anonymous callers are checked.
///
/// Thread rules: the `cached…` methods and `withCaller` touch memory only and are safe on an event loop; the others
/// may verify a token signature or read the store (rules' `get()`/`exists()`), so call them on the worker pool.
public struct DataAccess: Sendable {
    /// The rules in force (hot-reloaded).
    public let rules: SecurityRules
    let store: CachedDocumentStore
    let adminKey: AdminKey
    let auth: AuthService
    let logger: Logger

    // MARK: Callers

    /// The caller a bearer token names, from memory only: `nil` means an ID token that must be verified first
    /// (`caller(bearerToken:)`, on the worker pool). No token is the anonymous caller.
    public func cachedCaller(bearerToken: String?) -> Caller? {
        guard let token = bearerToken else { return .anonymous }
        if adminKey.matches(token) { return .admin }
        return auth.cachedClaims(token: token).map(Caller.user)
    }

    /// The caller a bearer token names, verifying an ID token if needed (blocking). A bad, expired or revoked
    /// token, or a disabled account, is 401 `UNAUTHENTICATED`.
    public func caller(bearerToken: String?) throws -> Caller {
        if let caller = cachedCaller(bearerToken: bearerToken) { return caller }
        do {
            return .user(try auth.verifyIDToken(bearerToken ?? ""))
        } catch let error as KuraError where error.status == 401 || error.status == 403 {
            throw KuraError.unauthenticated(error.message)
        }
    }

    /// The bearer token of `request`; `nil` without an `Authorization` header (anonymous). Any other kind of
    /// `Authorization` is 401: a client that sends credentials means to be someone, not anonymous.
    public func bearerToken(_ request: Request) throws -> String? {
        guard request.headers["Authorization"] != nil else { return nil }
        guard let token = request.bearerToken, !token.isEmpty else {
            throw KuraError.unauthenticated("use 'Authorization: Bearer <ID token or admin key>', or none")
        }
        return token
    }

    /// Runs `body` with the caller of `request`: at once (on the event loop) when the caller is known from
    /// memory, otherwise on the worker pool after verifying the ID token there.
    public func withCaller(
        _ request: Request, _ environment: RequestEnvironment, _ body: @escaping @Sendable (Caller) throws -> Response
    ) throws -> Response {
        let token = try bearerToken(request)
        if let caller = cachedCaller(bearerToken: token) { return try body(caller) }
        return environment.offload { try body(try caller(bearerToken: token)) }
    }

    // MARK: Decisions

    /// Whether `caller` may read `document` with `method` (`.get`, or `.list` for a document a query or listener
    /// found). Blocking: rules may look documents up. Fails closed: an error reading the store is `false`.
    public func mayRead(_ caller: Caller, _ document: Document, method: RuleMethod = .get) -> Bool {
        if case .admin = caller { return true }
        let decision = try? decide(
            caller, method, path: document.path.segments, resource: Self.ruleDocument(document.path, document.fields),
            requestResource: nil, time: Timestamp.nowMicros(), rules: rules.current.ruleSet, onLoop: false)
        return decision?.isAllowed ?? false
    }

    /// Throws 403 `PERMISSION_DENIED` (naming the method and path, never data) unless the rules allow `method` on
    /// `path`. With `onLoop`, a rule that needs `get()`/`exists()` throws `MustRunOnWorkerPool` instead of reading.
    func authorize(
        _ caller: Caller, _ method: RuleMethod, path: [String], resource: RuleDocument?,
        requestResource: RuleDocument? = nil, time: Int64, rules: RuleSet, onLoop: Bool
    ) throws {
        if case .admin = caller { return }
        let decision = try decide(
            caller, method, path: path, resource: resource, requestResource: requestResource, time: time,
            rules: rules, onLoop: onLoop)
        if case .deny(let reason) = decision { throw denied(method, path.joined(separator: "/"), reason: reason) }
    }

    /// The rules' decision for a non-admin caller.
    func decide(
        _ caller: Caller, _ method: RuleMethod, path: [String], resource: RuleDocument?,
        requestResource: RuleDocument?, time: Int64, rules: RuleSet, onLoop: Bool
    ) throws -> RuleDecision {
        let trace = LookupTrace()
        let store = self.store
        let lookup: RuleContext.Lookup
        if onLoop {
            lookup = { _ in
                trace.neededStore = true
                return nil
            }
        } else {
            lookup = { segments in
                guard let path = try? DocumentPath(segments.joined(separator: "/")) else { return nil }
                do { return try store.get(path)?.fields } catch {
                    trace.error = error
                    return nil
                }
            }
        }
        let context = RuleContext(
            auth: caller.ruleAuth, resource: resource, requestResource: requestResource, time: time, lookup: lookup)
        let decision = rules.evaluate(method: method, path: path, context: context)
        // The decision was made on a made-up "missing" answer: it does not count.
        if trace.neededStore { throw MustRunOnWorkerPool() }
        if let error = trace.error { throw error }
        return decision
    }

    /// 403 `PERMISSION_DENIED`; the rules' reason (rule positions, no data) goes to the debug log only.
    func denied(_ method: RuleMethod, _ path: String, reason: String) -> KuraError {
        logger.debug("security rules denied \(method.rawValue) on \(path): \(reason)")
        return KuraError.permissionDenied("the security rules do not allow '\(method.rawValue)' on \(path)")
    }

    /// A document as `resource` / `request.resource`.
    static func ruleDocument(_ path: DocumentPath, _ fields: JSONObject) -> RuleDocument {
        RuleDocument(id: path.id, data: fields)
    }
}

/// Thrown by a rule check on an event loop that needs to read the store (`get()`/`exists()`): the caller moves the
/// work to the worker pool and checks again there.
struct MustRunOnWorkerPool: Error {}

/// What the rules' document lookups ran into during one evaluation (used on one thread, synchronously).
private final class LookupTrace {
    var neededStore = false
    var error: (any Error)?
}
