import Foundation
internal import KuraModel

/// A query over a collection or collection group: filters, order, limit and cursors, as `POST /api/query` takes
/// them. Build it from a `CollectionReference` (`todos.whereField("done", isEqualTo: false)`); each call returns a
/// new query.
public struct Query: Queryable, CustomStringConvertible {
    let kura: Kura
    let source: Source
    var filters: [Filter] = []
    /// `or`/`and` filters (`whereFilter`), AND-ed with `filters`.
    var composites: [Condition] = []
    var orders: [Order] = []
    var limit: Int?
    var start: Cursor?
    var end: Cursor?
    /// A filter value that could not be converted from `Any` (Firebase-style `whereField`): thrown when the query
    /// runs.
    var invalidValue: KuraError?

    enum Source: Sendable, Hashable {
        case collection([String])
        case collectionGroup(String)
    }

    struct Filter: Sendable, Hashable {
        var field: String
        var op: String
        var value: KuraValue
    }

    /// A `where` entry: a field filter, or an `or`/`and` of entries.
    indirect enum Condition: Sendable, Hashable {
        case field(Filter)
        case or([Condition])
        case and([Condition])
    }

    struct Order: Sendable, Hashable {
        var field: String
        var descending: Bool
    }

    struct Cursor: Sendable, Hashable {
        var values: [KuraValue]
        var inclusive: Bool
    }

    init(kura: Kura, source: Source) {
        self.kura = kura
        self.source = source
    }

    public var query: Query { self }

    public var description: String {
        (try? String(decoding: JSONText.encode(json()), as: UTF8.self)) ?? "Query(invalid)"
    }

    /// The body of `POST /api/query` (`limit` and `pageToken` as given, which paging sets), in the wire format the
    /// server decodes (KuraModel's `StructuredQuery.json`). A bad path fails with `.invalidPath`, a bad field name
    /// with `.invalidQuery`, before anything is sent.
    func json(limit: Int? = nil, pageToken: String? = nil) throws -> KuraValue {
        if let invalidValue { throw invalidValue }
        switch source {
        case .collection(let segments): try ResourcePath.validate(segments, document: false)
        case .collectionGroup(let id): try ResourcePath.validateID(id)
        }
        var query = try structured(value: JSONText.storable)
        query.limit = limit
        query.pageToken = pageToken
        return try KuraValue(model: query.json)
    }

    /// The complete sort order the server uses (docs/api.md, "Sort order"): the orderBy fields, the inequality
    /// fields not ordered on by field name, then `id`.
    var effectiveOrders: [Order] {
        if let orders = modelOrders { return orders }
        var orders = self.orders
        let inequality = filters.first { ["<", "<=", ">", ">=", "!=", "not-in"].contains($0.op) }
        if orders.isEmpty, let inequality { orders = [Order(field: inequality.field, descending: false)] }
        if !orders.contains(where: { $0.field == "id" }) {
            orders.append(Order(field: "id", descending: orders.last?.descending ?? false))
        }
        return orders
    }

    /// Cursor values for `document`: its values of every sort key, `id` included, so the position is exact.
    func cursorValues(for document: RemoteDocument) -> [KuraValue] {
        effectiveOrders.map { document.value(at: $0.field) ?? .null }
    }

    /// Documents from `POST /api/query`, following page tokens until `limit` (or the end).
    func fetchAll() async throws -> [RemoteDocument] {
        var documents: [RemoteDocument] = []
        var token: String?
        repeat {
            let pageLimit = limit.map { min($0 - documents.count, 1000) }
            let response = try await kura.call(
                APIRequest("POST", "/api/query", body: try json(limit: pageLimit, pageToken: token)))
            let page = try (response.body?["documents"]?.arrayValue ?? []).map(RemoteDocument.init(json:))
            documents += page
            token = page.isEmpty ? nil : response.body?["nextPageToken"]?.stringValue
        } while token != nil && (limit == nil || documents.count < limit!)
        return documents
    }

    /// Snapshot of `documents` (all `.added`, as a first listener snapshot would be). A document's own
    /// `hasPendingWrites` is set only when its path is among `pendingPaths`.
    func snapshot(
        _ documents: [RemoteDocument], metadata: SnapshotMetadata = .init(), pendingPaths: Set<ByteKey> = []
    ) -> QuerySnapshot {
        let snapshots = documents.map {
            QueryDocumentSnapshot(
                reference: DocumentReference(kura: kura, segments: ResourcePath.split($0.path)), document: $0,
                metadata: metadata.forDocument(pending: pendingPaths.contains(ByteKey($0.path))))
        }
        let changes = snapshots.enumerated().map {
            DocumentChange(type: .added, document: $0.element, oldIndex: nil, newIndex: $0.offset)
        }
        return QuerySnapshot(query: self, documents: snapshots, documentChanges: changes, metadata: metadata)
    }
}

/// Query building and running, shared by `Query` and `CollectionReference` (a collection is the query of all its
/// documents).
public protocol Queryable: Sendable {
    /// The query this value stands for.
    var query: Query { get }
}

extension Queryable {
    private func adding(_ field: String, _ op: String, _ value: KuraValue) -> Query {
        var query = self.query
        query.filters.append(.init(field: field, op: op, value: value))
        return query
    }

    /// Documents whose `field` (a dotted path, or `id`, `createTime`, `updateTime`) equals `value`.
    public func whereField(_ field: String, isEqualTo value: KuraValue) -> Query { adding(field, "==", value) }
    /// Documents where `field` exists and differs from `value`.
    public func whereField(_ field: String, isNotEqualTo value: KuraValue) -> Query { adding(field, "!=", value) }
    public func whereField(_ field: String, isLessThan value: KuraValue) -> Query { adding(field, "<", value) }
    public func whereField(_ field: String, isLessThanOrEqualTo value: KuraValue) -> Query {
        adding(field, "<=", value)
    }
    public func whereField(_ field: String, isGreaterThan value: KuraValue) -> Query { adding(field, ">", value) }
    public func whereField(_ field: String, isGreaterThanOrEqualTo value: KuraValue) -> Query {
        adding(field, ">=", value)
    }
    /// Documents whose array `field` contains `value`.
    public func whereField(_ field: String, arrayContains value: KuraValue) -> Query {
        adding(field, "array-contains", value)
    }
    /// Documents whose array `field` contains any of `values` (at most 30).
    public func whereField(_ field: String, arrayContainsAny values: [KuraValue]) -> Query {
        adding(field, "array-contains-any", .array(values))
    }
    /// Documents whose `field` equals one of `values` (at most 30).
    public func whereField(_ field: String, in values: [KuraValue]) -> Query { adding(field, "in", .array(values)) }
    /// Documents where `field` exists and equals none of `values` (at most 30).
    public func whereField(_ field: String, notIn values: [KuraValue]) -> Query {
        adding(field, "not-in", .array(values))
    }

    /// Sorts by `field`; later calls break ties. Documents without the field are left out, as in Firestore.
    public func order(by field: String, descending: Bool = false) -> Query {
        var query = self.query
        query.orders.append(.init(field: field, descending: descending))
        return query
    }

    /// At most `count` documents.
    public func limit(to count: Int) -> Query {
        var query = self.query
        query.limit = count
        return query
    }

    /// Starts at the position given by values of the `order(by:)` fields, in order (a prefix is enough).
    public func start(at values: [KuraValue]) -> Query { withStart(.init(values: values, inclusive: true)) }
    /// Starts just after the position given by values of the `order(by:)` fields.
    public func start(after values: [KuraValue]) -> Query { withStart(.init(values: values, inclusive: false)) }
    /// Ends at the position given by values of the `order(by:)` fields.
    public func end(at values: [KuraValue]) -> Query { withEnd(.init(values: values, inclusive: true)) }
    /// Ends just before the position given by values of the `order(by:)` fields.
    public func end(before values: [KuraValue]) -> Query { withEnd(.init(values: values, inclusive: false)) }

    /// Starts just after `document` (the next page after the last document of a previous page).
    public func start(afterDocument document: QueryDocumentSnapshot) -> Query {
        withStart(.init(values: query.cursorValues(for: document.document), inclusive: false))
    }
    /// Starts at `document`.
    public func start(atDocument document: QueryDocumentSnapshot) -> Query {
        withStart(.init(values: query.cursorValues(for: document.document), inclusive: true))
    }

    private func withStart(_ cursor: Query.Cursor) -> Query {
        var query = self.query
        query.start = cursor
        return query
    }

    private func withEnd(_ cursor: Query.Cursor) -> Query {
        var query = self.query
        query.end = cursor
        return query
    }

    /// Runs the query: every matching document (pages are fetched as needed), in order. With offline persistence,
    /// a server that cannot be reached makes this answer from the cache (`metadata.isFromCache`).
    public func getDocuments(source: Source = .default) async throws -> QuerySnapshot {
        let query = self.query
        if let invalidValue = query.invalidValue { throw invalidValue }
        if let offline = query.kura.offline { return try await offline.getDocuments(query, source: source) }
        guard source != .cache else { throw KuraError(.unavailable, "offline persistence is off; nothing is cached") }
        return query.snapshot(try await query.fetchAll())
    }

    /// How many documents match (`POST /api/query/count`), without fetching them.
    public func count() async throws -> Int {
        let query = self.query
        let response = try await query.kura.call(
            APIRequest("POST", "/api/query/count", body: try query.json(limit: query.limit)))
        guard let count = response.body?["count"]?.intValue else { throw KuraError.invalidResponse("no count") }
        return count
    }
}
