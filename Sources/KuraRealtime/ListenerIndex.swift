import KuraCore
import KuraModel
import KuraStore

/// Finds the listeners a change-log entry can concern without looking at the others: document listeners by
/// path; query listeners by collection path (or collection-group ID) and, when the query has an `==` or `in`
/// filter on a data field, by that field's value. A write then costs work only for the listeners whose results
/// it could enter or leave (its document before or after the write has the value they filter on), and none for
/// idle listeners elsewhere.
struct ListenerIndex<Key: Hashable> {
    private var documents: [DocumentPath: Set<Key>] = [:]
    /// By collection path (`users/u1/todos`). Keys here and below have byte identity (docs/api.md, "Identity").
    private var collections: [CollectionPath: Bucket] = [:]
    /// By collection ID, for collection-group queries.
    private var groups: [ByteKey: Bucket] = [:]
    private(set) var count = 0

    /// The listeners of one collection or group.
    private struct Bucket {
        /// Listeners without an indexable filter: every write in the collection concerns them.
        var unfiltered: Set<Key> = []
        /// Listeners with an `==`/`in` filter: field → encoded value (`IndexKey`) → listeners.
        var byValue: [FieldPath: [[UInt8]: Set<Key>]] = [:]

        var isEmpty: Bool { unfiltered.isEmpty && byValue.isEmpty }

        mutating func insert(_ key: Key, _ filter: (FieldPath, [JSONValue])?) {
            guard let (field, values) = filter else {
                unfiltered.insert(key)
                return
            }
            for value in values { byValue[field, default: [:]][IndexKey.encode(value), default: []].insert(key) }
        }

        mutating func remove(_ key: Key, _ filter: (FieldPath, [JSONValue])?) {
            guard let (field, values) = filter else {
                unfiltered.remove(key)
                return
            }
            for value in values {
                let encoded = IndexKey.encode(value)
                byValue[field]?[encoded]?.remove(key)
                if byValue[field]?[encoded]?.isEmpty == true { byValue[field]?[encoded] = nil }
            }
            if byValue[field]?.isEmpty == true { byValue[field] = nil }
        }

        func collect(_ states: [Document?], into keys: inout Set<Key>) {
            keys.formUnion(unfiltered)
            for (field, values) in byValue {
                for state in states {
                    guard let value = state?.fields.value(at: field), let found = values[IndexKey.encode(value)]
                    else { continue }
                    keys.formUnion(found)
                }
            }
        }
    }

    /// Adds the listener `key` for `target`.
    mutating func insert(_ key: Key, _ target: ListenTarget) {
        count += 1
        switch target.kind {
        case .document(let path): documents[path, default: []].insert(key)
        case .query(_, let matcher):
            let filter = Self.indexedFilter(matcher.query)
            switch matcher.query.source {
            case .collection(let collection): collections[collection, default: Bucket()].insert(key, filter)
            case .collectionGroup(let id): groups[ByteKey(id), default: Bucket()].insert(key, filter)
            }
        }
    }

    /// Removes the listener `key` (added with `target`).
    mutating func remove(_ key: Key, _ target: ListenTarget) {
        count -= 1
        switch target.kind {
        case .document(let path):
            documents[path]?.remove(key)
            if documents[path]?.isEmpty == true { documents[path] = nil }
        case .query(_, let matcher):
            let filter = Self.indexedFilter(matcher.query)
            switch matcher.query.source {
            case .collection(let collection):
                collections[collection]?.remove(key, filter)
                if collections[collection]?.isEmpty == true { collections[collection] = nil }
            case .collectionGroup(let id):
                groups[ByteKey(id)]?.remove(key, filter)
                if groups[ByteKey(id)]?.isEmpty == true { groups[ByteKey(id)] = nil }
            }
        }
    }

    /// The listeners a write of `path` (from `before` to `after`) may concern. A superset: each still decides
    /// with its own query.
    func listeners(for path: DocumentPath, before: Document?, after: Document?) -> Set<Key> {
        var keys = documents[path] ?? []
        let states = [before, after]
        collections[path.collection]?.collect(states, into: &keys)
        groups[ByteKey(path.segments[path.segments.count - 2])]?.collect(states, into: &keys)
        return keys
    }

    /// The filter a query is indexed by: its first `==` (one value) or `in` (its values) on a data field.
    /// Any document the query matches has one of those values there, so the listener is found through it.
    static func indexedFilter(_ query: NormalizedQuery) -> (FieldPath, [JSONValue])? {
        for filter in query.filters {
            guard case .field(let path) = filter.field else { continue }
            switch filter.op {
            case .equal: return (path, [filter.value])
            case .in: return (path, filter.value.arrayValue ?? [])
            default: continue
            }
        }
        return nil
    }
}
