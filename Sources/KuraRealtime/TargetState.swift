import KuraCore
import KuraStore

/// One listener: its target, the documents its client holds, and how far it has been brought. Belongs to one
/// thread at a time: the worker that prepares it, then the change feed.
final class TargetState: @unchecked Sendable {
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
    }

    var principal: ListenPrincipal { connection.principal }

    /// Whether the listener may read `document`: `get` for a document target, `list` for a query's documents.
    func readable(_ document: Document) -> Bool {
        if principal.bypassesRules { return true }
        switch target.kind {
        case .document:
            return access.mayRead(principal, path: document.path, document: document, listing: false)
        case .query:
            let collection = document.path.collection
            let now = Clock.seconds()
            let allowed: Bool?
            if let cached = decisions[collection], cached.until > now {
                allowed = cached.allowed
            } else {
                allowed = access.listDecision(principal, collection: collection)
                if decisions.count > 64 { decisions.removeAll() }
                decisions[collection] = (allowed, now + 1)
            }
            return allowed ?? access.mayRead(principal, path: document.path, document: document, listing: true)
        }
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
        return try sharing.apply(shareKey, view: &view, token: &viewToken) { view in
            try apply(change, to: &view, reader: reader)
        }
    }

    private func apply(_ change: Change, to view: inout TargetView, reader: TargetReader) throws -> [ListenChange] {
        try view.apply(
            path: change.path, after: change.after,
            includes: { self.target.matches($0) && self.readable($0) },
            refill: { after, count in
                guard count > 0 else { return ([], false) }
                let snapshot = try reader.read(
                    self.target, at: change.sequence, after: after, limit: count, readable: self.readable)
                return (snapshot.documents, snapshot.complete)
            })
    }
}

/// Wall-clock seconds, for timers that need no precision.
enum Clock {
    static func seconds() -> Double { Double(Timestamp.nowMicros()) / 1_000_000 }
}
