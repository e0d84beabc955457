import KuraCore
import KuraModel
import KuraStore

/// What identical listeners share. Many streams often listen to the same query (a feed, a chat room); applying a
/// change to each of their views separately costs the change feed O(listeners × view work) per write. Listeners
/// whose views provably give the same answer for a change share one computation instead:
/// - the same target (`ShareKey`: the same document, or the same normalized query, limit and projection);
/// - principals for whom `includes` and `refill` decide the same: ones the rules do not apply to, or whose rules
///   identity is equal (`ListenPrincipal.rulesIdentity`: the same user on the same claims), which then share
///   under a key scoped to that identity and never with anyone else;
/// - the same documents in their view (the same values, in order) and the same `complete` flag.
/// The first listener of a group computes the change; the others take its result and its new view (copy on write:
/// the views then share storage). A token names a view's contents, so that listeners that shared a result once are
/// recognised again without comparing documents; a result found by token is taken only under the key it was
/// computed with (a listener's key can change between writes, when the rules' decision for its collection does).
struct ViewSharing {
    /// Results of the change being applied, per key.
    private var entries: [ShareKey: [Entry]] = [:]
    /// The same results by the token of the view they were computed from.
    private var byToken: [Int: Entry] = [:]
    private var lastToken = 0
    /// Distinct views kept per key and change; beyond it, listeners compute alone.
    private static let maxEntries = 8

    /// One computed result: the view before and after, and what the listener is told.
    private final class Entry {
        let key: ShareKey
        let before: TargetView
        let beforeToken: Int
        let after: TargetView
        let afterToken: Int
        let chunk: ChangeChunk?

        init(
            key: ShareKey, before: TargetView, beforeToken: Int, after: TargetView, afterToken: Int,
            chunk: ChangeChunk?
        ) {
            self.key = key
            self.before = before
            self.beforeToken = beforeToken
            self.after = after
            self.afterToken = afterToken
            self.chunk = chunk
        }
    }

    /// Starts a new change: results of the previous one no longer apply.
    mutating func begin() {
        if !entries.isEmpty { entries.removeAll(keepingCapacity: true) }
        if !byToken.isEmpty { byToken.removeAll(keepingCapacity: true) }
    }

    /// A token no view has had yet.
    private mutating func freshToken() -> Int {
        lastToken += 1
        return lastToken
    }

    /// Applies the current change to `view` (named by `token`) with `compute`, or takes the result already
    /// computed for an equal view of the same key (`nil` key: computes alone). Returns what the listener is told,
    /// `nil` for nothing. When `compute` throws, the view is left unnamed (token 0).
    mutating func apply(
        _ key: ShareKey?, view: inout TargetView, token: inout Int,
        compute: (inout TargetView) throws -> [ListenChange]
    ) rethrows -> ChangeChunk? {
        guard let key else {
            token = 0
            let changes = try compute(&view)
            return changes.isEmpty ? nil : ChangeChunk(changes)
        }
        if let entry = token != 0 ? byToken[token] : nil, entry.key == key {
            view = entry.after
            token = entry.afterToken
            return entry.chunk
        }
        if let entry = entries[key]?.first(where: { $0.before.hasSameContents(as: view) }) {
            view = entry.after
            token = entry.afterToken
            return entry.chunk
        }
        let before = view
        let beforeToken = token != 0 ? token : freshToken()
        token = 0
        let changes = try compute(&view)
        token = freshToken()
        let chunk = changes.isEmpty ? nil : ChangeChunk(changes)
        if entries[key, default: []].count < Self.maxEntries {
            let entry = Entry(
                key: key, before: before, beforeToken: beforeToken, after: view, afterToken: token, chunk: chunk)
            entries[key, default: []].append(entry)
            byToken[beforeToken] = entry
        }
        return chunk
    }
}

/// The changes one write makes to a view, shared by every listener that had that view; encoded once (listeners
/// that share a chunk have the same projection).
final class ChangeChunk {
    let changes: [ListenChange]
    var encoded: [UInt8]?

    init(_ changes: [ListenChange]) {
        self.changes = changes
    }
}

/// Identifies a target's results independently of its id: listeners with equal keys (and equal views) get the
/// same changes from the same write.
///
/// A scoped key's live listeners are counted by the change feed (`ShareGroup`): one alone under its key computes
/// without the bookkeeping of sharing.
struct ShareKey: Hashable {
    private enum Kind: Hashable {
        case document(DocumentPath)
        case query(QueryKey)
    }
    private let kind: Kind
    /// The rules identity whose listeners alone share under this key (`ListenPrincipal.rulesIdentity`); `nil`
    /// for the unfiltered views of administrators and of callers the rules let list the whole collection.
    private var scope: String?

    /// Every name in it has byte identity (docs/api.md, "Identity"): with `[String]` here (and in the listener
    /// index and `covers`, as they were), a listener on `groups/が/posts` took the change computed for
    /// `groups/か\u{3099}/posts`, another group's posts.
    private struct QueryKey: Hashable {
        var collection: CollectionPath?
        var group: ByteKey?
        var filters: [FilterKey]
        /// The `or` filters, as their JSON.
        var disjunctions: [JSONValue]
        var orders: [OrderKey]
        var limit: Int?
        var start: CursorKey?
        var end: CursorKey?
        var select: [FieldPath]?
    }
    private struct FilterKey: Hashable {
        var field: QueryField
        var op: String
        var value: JSONValue
    }
    private struct OrderKey: Hashable {
        var field: QueryField
        var descending: Bool
    }
    private struct CursorKey: Hashable {
        var values: [JSONValue]
        var inclusive: Bool
    }

    /// The key of `target` for listeners filtered by the rules as `scope` is (a principal's rules identity).
    init?(_ target: ListenTarget, scope: String) {
        self.init(target)
        self.scope = scope
    }

    /// The key of `target`; `nil` when it cannot be shared (a position resumed from a page token).
    init?(_ target: ListenTarget) {
        switch target.kind {
        case .document(let path): kind = .document(path)
        case .query(_, let matcher):
            let query = matcher.query
            guard query.after == nil else { return nil }
            var key = QueryKey(
                filters: query.filters.map { FilterKey(field: $0.field, op: $0.op.rawValue, value: $0.value) },
                disjunctions: query.disjunctions.map { $0.json },
                orders: query.orders.map { OrderKey(field: $0.field, descending: $0.descending) }, limit: query.limit,
                start: query.start.map { CursorKey(values: $0.values, inclusive: $0.inclusive) },
                end: query.end.map { CursorKey(values: $0.values, inclusive: $0.inclusive) }, select: query.select)
            switch query.source {
            case .collection(let collection): key.collection = collection
            case .collectionGroup(let id): key.group = ByteKey(id)
            }
            kind = .query(key)
        }
    }
}

/// The live listeners under one scoped `ShareKey` (the same target for the same rules identity); the change feed
/// owns it.
final class ShareGroup {
    let key: ShareKey
    var members = 0

    init(key: ShareKey) {
        self.key = key
    }
}
