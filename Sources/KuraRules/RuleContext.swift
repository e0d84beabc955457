import KuraCore
import KuraModel

/// The operation a request performs on a document path.
public enum RuleMethod: String, Sendable, CaseIterable {
    /// Read one document.
    case get
    /// Query a collection.
    case list
    /// Write a document that does not exist yet.
    case create
    /// Change an existing document.
    case update
    /// Remove a document.
    case delete

    /// This method's bit in `CompiledAllow.methods` (`allCases` order, without building `allCases`).
    var bit: UInt8 {
        switch self {
        case .get: 1
        case .list: 2
        case .create: 4
        case .update: 8
        case .delete: 16
        }
    }
}

/// The outcome of evaluating rules for one request.
public enum RuleDecision: Sendable, Equatable {
    /// Some matching `allow` statement's condition was `true`.
    case allow
    /// Nothing granted access. The reason is for logs only: it names rule positions, never document data.
    case deny(reason: String)

    /// `true` for `.allow`.
    public var isAllowed: Bool { self == .allow }
}

/// The signed-in user as rules see it: `request.auth.uid` and `request.auth.token.<claim>`.
public struct RuleAuth: Sendable, Equatable {
    /// The user id.
    public var uid: String
    private var claims: Claims

    /// The token, or what makes it on demand (most rules never read it, and it is built for every request).
    private enum Claims: Sendable {
        case value(JSONObject)
        case provider(@Sendable () -> JSONObject)
    }

    /// Token claims: `email`, `email_verified` and custom claims.
    public var token: JSONObject {
        get {
            switch claims {
            case .value(let object): object
            case .provider(let make): make()
            }
        }
        set { claims = .value(newValue) }
    }

    /// A signed-in user.
    public init(uid: String, token: JSONObject = [:]) {
        self.uid = uid
        claims = .value(token)
    }

    /// A signed-in user whose token claims are built only if a rule reads them (`request.auth.token`, or
    /// `request.auth` as a whole), at most once per evaluation.
    public init(uid: String, token: @escaping @Sendable () -> JSONObject) {
        self.uid = uid
        claims = .provider(token)
    }

    public static func == (lhs: RuleAuth, rhs: RuleAuth) -> Bool {
        lhs.uid.bytesEqual(rhs.uid) && lhs.token == rhs.token
    }
}

/// A document as rules see it: `resource.id` and `resource.data`.
public struct RuleDocument: Sendable, Equatable {
    /// The document id (last path segment).
    public var id: String
    /// The document's fields.
    public var data: JSONObject

    /// A document.
    public init(id: String, data: JSONObject) {
        self.id = id
        self.data = data
    }

    /// Same ID and data, by bytes (docs/api.md, "Identity").
    public static func == (lhs: RuleDocument, rhs: RuleDocument) -> Bool {
        lhs.id.bytesEqual(rhs.id) && lhs.data == rhs.data
    }
}

/// Everything an evaluation can see besides the method and path.
public struct RuleContext {
    /// Reads a document for `get()` / `exists()`: `nil` when it does not exist. Called at most
    /// `RuleSet.maxLookups` times per evaluation (repeated paths are answered from a per-evaluation cache).
    public typealias Lookup = (_ path: [String]) -> JSONObject?

    /// The signed-in user, or `nil` when signed out (`request.auth == null`).
    public var auth: RuleAuth?
    /// The document as stored before the request (`resource`), or `nil` when it does not exist.
    public var resource: RuleDocument?
    /// The document as it would be after a write (`request.resource`), or `nil` (reads, deletes).
    public var requestResource: RuleDocument?
    /// `request.time`, microseconds since the Unix epoch.
    public var time: Int64
    /// Document reads for `get()` and `exists()`.
    public var lookup: Lookup

    /// A context; `lookup` defaults to "no documents exist".
    public init(
        auth: RuleAuth?, resource: RuleDocument? = nil, requestResource: RuleDocument? = nil, time: Int64 = 0,
        lookup: @escaping Lookup = { _ in nil }
    ) {
        self.auth = auth
        self.resource = resource
        self.requestResource = requestResource
        self.time = time
        self.lookup = lookup
    }
}
