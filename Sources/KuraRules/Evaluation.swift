import KuraCore
import KuraModel

/// A compiled expression: the closure tree built once at load.
typealias Evaluator = @Sendable (Evaluation) throws(RuleEvaluationError) -> RuleValue

/// The mutable state of one `RuleSet.evaluate` call: bound path variables, function frames, lookups.
final class Evaluation {
    /// Most distinct documents `get()`/`exists()` may read per evaluation.
    static let maxLookups = 10
    /// Most user-function calls per evaluation; bounds the work a rules file can make one request do.
    static let maxCalls = 1_000
    /// Deepest nesting of user-function calls (Firestore's limit).
    static let maxCallDepth = 20
    /// Longest string or list `+` may build.
    static let maxConcatenatedLength = 1 << 20

    let context: RuleContext
    let method: RuleMethod
    let path: [String]
    /// Path variables, one slot per variable in the whole file (assigned at compile time).
    var slots: [RuleValue]
    /// Function arguments and `let` values; a call's frame starts at `base`.
    var stack: [RuleValue] = []
    var base = 0
    var calls = 0
    var depth = 0
    private var lookups: [(path: [String], document: JSONObject?)] = []
    /// Set by `RuleSet.evaluateInMemory`: lookups answer "missing" and set `neededLookup` instead of reading.
    var lookupsUnavailable = false
    private(set) var neededLookup = false
    private var cachedAuth: RuleValue?
    private var cachedAuthToken: RuleValue?
    private var cachedResource: RuleValue?
    private var cachedRequestResource: RuleValue?

    init(context: RuleContext, method: RuleMethod, path: [String], slotCount: Int) {
        self.context = context
        self.method = method
        self.path = path
        slots = Array(repeating: .null, count: slotCount)
    }

    /// `request.auth`.
    var auth: RuleValue {
        if let cachedAuth { return cachedAuth }
        let value: RuleValue =
            context.auth.map { .map(.members([("uid", .string($0.uid)), ("token", authToken)])) } ?? .null
        cachedAuth = value
        return value
    }

    /// `request.auth.token` (`null` when signed out), built once per evaluation and only when read.
    var authToken: RuleValue {
        if let cachedAuthToken { return cachedAuthToken }
        let value: RuleValue = context.auth.map { .map(.json($0.token)) } ?? .null
        cachedAuthToken = value
        return value
    }

    /// `resource`.
    var resource: RuleValue {
        if let cachedResource { return cachedResource }
        let value = Self.documentValue(context.resource)
        cachedResource = value
        return value
    }

    /// `request.resource`.
    var requestResource: RuleValue {
        if let cachedRequestResource { return cachedRequestResource }
        let value = Self.documentValue(context.requestResource)
        cachedRequestResource = value
        return value
    }

    /// `request` as a whole map (only built when a rule uses `request` other than as `request.<field>`).
    var request: RuleValue {
        .map(
            .members([
                ("auth", auth), ("resource", requestResource), ("time", .timestamp(context.time)),
                ("method", .string(method.rawValue)), ("path", .path(path)),
            ]))
    }

    static func documentValue(_ document: RuleDocument?) -> RuleValue {
        guard let document else { return .null }
        return .map(.members([("id", .string(document.id)), ("data", .map(.json(document.data)))]))
    }

    /// Reads a document through the caller's lookup, counting distinct paths against `maxLookups`.
    func lookup(_ path: [String]) throws(RuleEvaluationError) -> JSONObject? {
        if lookupsUnavailable {
            neededLookup = true
            return nil
        }
        if let cached = lookups.first(where: { $0.path.bytesEqual(path) }) { return cached.document }
        guard lookups.count < Self.maxLookups else {
            throw RuleEvaluationError("more than \(Self.maxLookups) document lookups in one evaluation")
        }
        let document = context.lookup(path)
        lookups.append((path, document))
        return document
    }
}
