import KuraCore
import KuraModel
import KuraStore

/// Who holds a listen stream, as the server's access layer resolved it. `context` is the access layer's own
/// value (the server's `Caller`); realtime code only passes it back.
public struct ListenPrincipal: Sendable {
    /// Identifies the caller for "the same caller" checks: `admin`, `user:<uid>` or `anonymous`.
    public let identity: String
    /// The administrator: the security rules do not apply.
    public let bypassesRules: Bool
    /// When the credentials expire (seconds since the epoch); `nil` when they do not.
    public let expiresAt: Int64?
    /// The access layer's value for this caller.
    public let context: any Sendable
    /// `ListenAccess.revocationEpoch` read before the credentials were checked: a stream whose principal was
    /// resolved before a revocation that it missed is checked again before it delivers anything.
    public let revocationEpoch: UInt64
    /// Names everything the security rules see of this caller (for a user: the uid and every claim of the token),
    /// so that principals with equal values get the same decision on the same document at the same moment. The
    /// change feed then computes once for all the listeners of one query held by such principals (the same
    /// user's tabs and devices on one token, a client's several streams); `nil`: never shared that way.
    public let rulesIdentity: String?

    /// Creates a principal.
    public init(
        identity: String, bypassesRules: Bool, expiresAt: Int64?, context: any Sendable, revocationEpoch: UInt64 = 0,
        rulesIdentity: String? = nil
    ) {
        self.identity = identity
        self.bypassesRules = bypassesRules
        self.expiresAt = expiresAt
        self.context = context
        self.revocationEpoch = revocationEpoch
        self.rulesIdentity = rulesIdentity
    }
}

/// What realtime needs from authentication and the security rules. Every method may block (token checks, rules'
/// `get()`), so none is called on an event loop.
public protocol ListenAccess: Sendable {
    /// Whether the principal's credentials still hold (not revoked, account not disabled, not expired, the same
    /// claims).
    func isStillValid(_ principal: ListenPrincipal) -> Bool

    /// A counter that moves with every revocation in this process (see `ListenerRegistry.revoke(where:)`);
    /// lock-free. 0 when the access layer has none.
    var revocationEpoch: UInt64 { get }

    /// Whether `principal` may read the document at `path` (`document` is `nil` when it does not exist): `get`
    /// for document listeners, `list` (`listing`) for documents a query listener delivers.
    func mayRead(_ principal: ListenPrincipal, path: DocumentPath, document: Document?, listing: Bool) -> Bool

    /// The `list` decision for every document directly in `collection` when the rules make it without looking at
    /// the document, else `nil` (then `mayRead` is asked per document).
    func listDecision(_ principal: ListenPrincipal, collection: CollectionPath) -> Bool?
}

extension ListenAccess {
    public var revocationEpoch: UInt64 { 0 }
}
