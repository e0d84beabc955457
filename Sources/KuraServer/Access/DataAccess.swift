import KuraAuth
import KuraCore
import KuraHTTP
import KuraModel
import KuraRules
import KuraStore

/// Who may read and write which documents: asks the security rules in force about the request's caller (resolved
/// before the handler runs, `CallerResolution`). The administrator (admin key) bypasses the rules; users (ID token)
/// and anonymous callers are checked.
///
/// Thread rules: `ruleSet(on:)` and `authorizeGet` touch memory only and are safe on an event loop; the others may
/// read the store (rules' `get()`/`exists()`), so call them on the worker pool.
public struct DataAccess: Sendable {
    /// The rules in force (hot-reloaded).
    public let rules: SecurityRules
    let store: CachedDocumentStore
    let auth: AuthService
    let logger: Logger
    /// What one query may ask for and cost (`query.*`).
    let queryLimits: QueryLimits
    /// Rule-checked writes to one document, one after the other (`DurableCommit`).
    let writeLines = DocumentLines()
    /// The rules in force and their version, as each event loop last read them.
    private let loopRules: LoopLocal<(version: UInt64, ruleSet: RuleSet)?>
    /// Allowed `get` decisions that depend on the caller and path only, per event loop.
    private let loopDecisions: LoopLocal<LoopDecisionMemo>

    init(
        rules: SecurityRules, store: CachedDocumentStore, auth: AuthService, logger: Logger, eventLoops: Int,
        loopCaches: LoopCacheLimits = LoopCacheLimits(), queryLimits: QueryLimits = QueryLimits()
    ) {
        self.queryLimits = queryLimits
        self.rules = rules
        self.store = store
        self.auth = auth
        self.logger = logger
        loopRules = LoopLocal(loops: eventLoops) { nil }
        loopDecisions = LoopLocal(loops: eventLoops) { LoopDecisionMemo(capacity: loopCaches.rememberedReads) }
    }

    /// The rules in force and their version, for a check on `loop`: the loop's copy while `SecurityRules.version`
    /// (an atomic) has not moved, so that a check takes no lock; read again under the lock when it has.
    func ruleSet(on loop: EventLoop) -> (ruleSet: RuleSet, version: UInt64) {
        let version = rules.version
        if let cached = loopRules.withValue(on: loop, { $0 }) ?? nil, cached.version == version {
            return (cached.ruleSet, cached.version)
        }
        let (loaded, loadedVersion) = rules.currentVersioned
        loopRules.withValue(on: loop) { $0 = (loadedVersion, loaded.ruleSet) }
        return (loaded.ruleSet, loadedVersion)
    }

    /// `authorize` for `get` of the cached document `path` (`fields` its data) on the event loop `loop`: throws
    /// 403, or `MustRunOnWorkerPool` when the rules want to read the store. A user's allowed decision that depends
    /// on the caller and path only is remembered on the loop (`LoopDecisionMemo`); `pathKey` is the path as the
    /// request spelled it.
    func authorizeGet(
        _ caller: Caller, _ path: DocumentPath, pathKey: String, fields: JSONObject, on loop: EventLoop
    ) throws {
        guard case .user(let claims) = caller else {
            return try authorize(
                caller, .get, path: path.segments, resource: Self.ruleDocument(path, fields),
                time: WallClock.nowMicros(), rules: ruleSet(on: loop).ruleSet, onLoop: loop.inEventLoop)
        }
        let epoch = auth.revocationEpoch
        let (ruleSet, version) = ruleSet(on: loop)
        let remembered = loopDecisions.withValue(on: loop) {
            $0.allowsGet(claims, path: pathKey, rulesVersion: version, epoch: epoch)
        }
        if remembered == true { return }
        try authorize(
            caller, .get, path: path.segments, resource: Self.ruleDocument(path, fields), time: WallClock.nowMicros(),
            rules: ruleSet, onLoop: loop.inEventLoop)
        if remembered != nil, ruleSet.decisionDependsOnlyOnCallerAndPath(method: .get, path: path.segments) {
            loopDecisions.withValue(on: loop) {
                $0.rememberGet(claims, path: pathKey, rulesVersion: version, epoch: epoch)
            }
        }
    }

    // MARK: Decisions

    /// Whether `caller` may read `document` with `method` (`.get`, or `.list` for a document a query or listener
    /// found). Blocking: rules may look documents up. Fails closed: an error reading the store is `false`.
    public func mayRead(_ caller: Caller, _ document: Document, method: RuleMethod = .get) -> Bool {
        if case .admin = caller { return true }
        let decision = try? decide(
            caller, method, path: document.path.segments, resource: Self.ruleDocument(document.path, document.fields),
            requestResource: nil, time: WallClock.nowMicros(), rules: rules.current.ruleSet, onLoop: false)
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
        if onLoop {
            // No lookups on an event loop: a rule that wants one sends the check to the worker pool.
            let context = RuleContext(
                auth: caller.ruleAuth, resource: resource, requestResource: requestResource, time: time)
            guard let decision = rules.evaluateInMemory(method: method, path: path, context: context) else {
                throw MustRunOnWorkerPool()
            }
            return decision
        }
        let trace = LookupTrace()
        let store = self.store
        let context = RuleContext(
            auth: caller.ruleAuth, resource: resource, requestResource: requestResource, time: time
        ) { segments in
            guard let path = try? DocumentPath(segments.joined(separator: "/")) else { return nil }
            do { return try store.get(path)?.fields } catch {
                trace.error = error
                return nil
            }
        }
        let decision = rules.evaluate(method: method, path: path, context: context)
        if let error = trace.error { throw error }
        return decision
    }

    /// 403 `PERMISSION_DENIED`; the rules' reason (rule positions, no data) goes to the debug log only.
    func denied(_ method: RuleMethod, _ path: String, reason: String) -> APIError {
        logger.debug("security rules denied \(method.rawValue) on \(path): \(reason)")
        return APIError.permissionDenied("the security rules do not allow '\(method.rawValue)' on \(path)")
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
    var error: (any Error)?
}

/// How much each event loop's own caches keep (`DataAccess`); each starts over when full.
struct LoopCacheLimits: Sendable {
    /// `Authorization` values and their callers (`LoopCallerCache`); `auth.callersPerLoop`.
    var callers = 1024
    /// Allowed reads remembered (`LoopDecisionMemo`); `rules.rememberedReadsPerLoop`.
    var rememberedReads = 4096
}
