import KuraCore
import KuraModel
import KuraStore

/// One listener: its target, the documents its client holds, and how far it has been brought. Belongs to one
/// thread at a time: the worker that prepares it, then the change feed.
final class TargetState: @unchecked Sendable {
    // `@unchecked`: belongs to one thread at a time (above): the worker that prepares it, then, handed over through the
    // registry's inbox, the change feed.
    /// Unique among the registry's listeners (the fan-out index's key).
    let key: Int
    let target: ListenTarget
    let connection: ListenConnection
    let generation: UInt64
    let access: any ListenAccess
    var view: TargetView
    /// Every change up to here is reflected in `view`.
    var sequence: Int64
    /// Listeners with the same key and equal views get the same changes (`ViewSharing`); `nil` when this one
    /// computes alone (the rules apply to its principal).
    let shareKey: ShareKey?
    /// For a query on one collection whose principal the rules apply to: the key it shares under while the rules
    /// let it list that whole collection (a decision that does not depend on the documents). Its view is then the
    /// unfiltered one, the same as an administrator's, so it can share with theirs and with other such callers.
    private let openShareKey: ShareKey?
    /// For a listener the rules filter: the key it shares under with the listeners of the same target whose
    /// principals have the same rules identity (`ListenPrincipal.rulesIdentity`), while it has company (`group`).
    let scopedShareKey: ShareKey?
    /// The live listeners under `scopedShareKey`, this one included; set by the change feed while it is live.
    var group: ShareGroup?
    /// Names the view's contents for `ViewSharing` (equal tokens, equal views); 0 when unknown. Feed thread only.
    var viewToken = 0
    /// The changes of the page being processed, not yet sent. Feed thread only.
    var outgoing: [ChangeChunk] = []
    /// Recent `list` decisions per collection (rules may be reloaded, so they are kept briefly).
    private var decisions: [CollectionPath: (allowed: Bool?, until: Double)] = [:]

    init(
        key: Int, target: ListenTarget, connection: ListenConnection, generation: UInt64, access: any ListenAccess,
        view: TargetView, sequence: Int64
    ) {
        self.key = key
        self.target = target
        self.connection = connection
        self.generation = generation
        self.access = access
        self.view = view
        self.sequence = sequence
        shareKey = connection.principal.bypassesRules ? ShareKey(target) : nil
        if shareKey == nil, case .query(let query, _) = target.kind, case .collection = query.source {
            openShareKey = ShareKey(target)
        } else {
            openShareKey = nil
        }
        if shareKey == nil, let identity = connection.principal.rulesIdentity {
            scopedShareKey = ShareKey(target, scope: identity)
        } else {
            scopedShareKey = nil
        }
    }

    var principal: ListenPrincipal { connection.principal }

    /// Whether the listener may read `document`: `get` for a document target, `list` for a query's documents.
    func readable(_ document: Document) -> Bool {
        if principal.bypassesRules { return true }
        switch target.kind {
        case .document:
            return access.mayRead(principal, path: document.path, document: document, listing: false)
        case .query:
            return listDecision(document.path.collection)
                ?? access.mayRead(principal, path: document.path, document: document, listing: true)
        }
    }

    /// The rules' `list` decision for a whole collection (`nil`: it depends on each document), kept for a second.
    private func listDecision(_ collection: CollectionPath) -> Bool? {
        let now = MonotonicClock.seconds()
        if let cached = decisions[collection], cached.until > now { return cached.allowed }
        let allowed = access.listDecision(principal, collection: collection)
        if decisions.count > 64 { decisions.removeAll() }
        decisions[collection] = (allowed, now + 1)
        return allowed
    }

    /// Applies one change-log entry (if it is past `sequence` and could concern the target) and returns what the
    /// client is told. A limit window that a document left is refilled from the store as of this entry.
    func apply(_ change: Change, reader: TargetReader) throws -> [ListenChange] {
        guard change.sequence > sequence else { return [] }
        sequence = change.sequence
        guard target.covers(change.path) else { return [] }
        viewToken = 0
        return try apply(change, to: &view, reader: reader)
    }

    /// `apply`, sharing the work with listeners of the same key whose views are equal (`ViewSharing`). Returns
    /// the changes for the client, `nil` when there are none.
    func apply(_ change: Change, reader: TargetReader, sharing: inout ViewSharing) throws -> ChangeChunk? {
        guard change.sequence > sequence else { return nil }
        sequence = change.sequence
        guard target.covers(change.path) else { return nil }
        // Decided once for this change: the computation below then filters exactly as the key promises, even if
        // the cached decision expires meanwhile (another listener may adopt its result).
        let key: ShareKey?
        var unfiltered = true
        if let shareKey {
            key = shareKey
        } else if let openShareKey, listDecision(change.path.collection) == true {
            key = openShareKey
        } else {
            // Filtered by the rules for this principal: shared only with the same rules identity's listeners.
            unfiltered = false
            key = (group?.members ?? 0) > 1 ? scopedShareKey : nil
        }
        return try sharing.apply(key, view: &view, token: &viewToken) { view in
            try apply(change, to: &view, reader: reader, unfiltered: unfiltered)
        }
    }

    /// With `unfiltered`, every matching document counts as readable: the principal bypasses the rules, or they
    /// let it list the whole collection.
    private func apply(
        _ change: Change, to view: inout TargetView, reader: TargetReader, unfiltered: Bool = false
    ) throws -> [ListenChange] {
        let readable: (Document) -> Bool = unfiltered ? { _ in true } : { self.readable($0) }
        return try view.apply(
            path: change.path, after: change.after,
            includes: { self.target.matches($0) && readable($0) },
            refill: { after, count in
                guard count > 0 else { return ([], false) }
                let snapshot = try reader.read(
                    self.target, at: change.sequence, after: after, limit: count, readable: readable)
                return (snapshot.documents, snapshot.complete)
            })
    }
}
