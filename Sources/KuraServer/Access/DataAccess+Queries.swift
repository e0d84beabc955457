import KuraCore
import KuraModel
import KuraRules
import KuraStore

/// Lists, queries and counts under the security rules (docs/rules.md, "Queries"). Blocking: worker pool only.
///
/// Rules filter: `list` is evaluated for each document the query matches, at the document's own path with
/// `resource` set to it; documents the caller may not list are skipped, and the store is asked for more so that
/// pages stay full. When the decision cannot depend on the document (see `RuleSet.listDependsOnDocument`), it is
/// made once per collection; a collection query the caller may not list at all is 403.
extension DataAccess {
    /// Most documents read from the store per round while filtering.
    static let filterBatch = 1000

    /// One page of the documents matching `query` that `caller` may list. Its `nextPageToken` resumes right
    /// after the last document returned, so pages never repeat or skip a document.
    ///
    /// Callers other than the administrator spend one work budget (`query.maxWork`, `QueryBudget`) over every
    /// round trip and rule evaluation; past it the query is 429 `RESOURCE_EXHAUSTED`.
    func query(_ query: StructuredQuery, caller: Caller) throws -> QueryPage {
        if case .admin = caller { return QueryPage(try store.query(query)) }
        var query = query
        query.budget = query.budget ?? queryLimits.budget()
        var filter = ListFilter(access: self, caller: caller, rules: rules.current.ruleSet, budget: query.budget)
        if case .collection(let collection) = query.source, let allowed = try filter.decision(for: collection) {
            guard allowed else { throw filter.denied(collection) }
            return QueryPage(try store.query(query))
        }
        let normalized = try NormalizedQuery(query)
        let limit = query.limit ?? Int.max
        // Rules see whole documents; the projection is applied to what is answered.
        var inner = query
        inner.select = nil
        var batch = min(limit, Self.filterBatch)
        var documents: [Document] = []
        while true {
            inner.limit = batch
            let page = try filter.unproven(query.source) { try store.query(inner) }
            for document in page.documents {
                guard try filter.allows(document) else { continue }
                documents.append(query.select.map { document.projected(to: $0) } ?? document)
                if documents.count == limit {
                    // Ends at a document the caller may read, so the token (which holds its sort values and
                    // path) tells nothing about the ones skipped.
                    return QueryPage(documents: documents, nextPageToken: normalized.pageToken(after: document))
                }
            }
            guard let next = page.nextPageToken else { return QueryPage(documents: documents, nextPageToken: nil) }
            inner.pageToken = next
            batch = min(max(limit - documents.count, batch * 2), Self.filterBatch)
        }
    }

    /// How many documents matching `query` `caller` may list (cursors and a given limit apply). Reads every match
    /// unless the decision is the same for the whole collection.
    func count(_ query: StructuredQuery, caller: Caller) throws -> Int64 {
        if case .admin = caller { return try store.count(query) }
        var query = query
        query.budget = query.budget ?? queryLimits.budget()
        var filter = ListFilter(access: self, caller: caller, rules: rules.current.ruleSet, budget: query.budget)
        if case .collection(let collection) = query.source, let allowed = try filter.decision(for: collection) {
            guard allowed else { throw filter.denied(collection) }
            return try store.count(query)
        }
        var inner = query
        inner.select = nil
        inner.pageToken = nil
        inner.limit = Self.filterBatch
        let limit = query.limit.map(Int64.init)
        var count: Int64 = 0
        while true {
            let page = try filter.unproven(query.source) { try store.query(inner) }
            for document in page.documents {
                guard try filter.allows(document) else { continue }
                count += 1
                if let limit, count >= limit { return count }
            }
            guard let next = page.nextPageToken else { return count }
            inner.pageToken = next
        }
    }
}

/// One page of query results as answered (the store's `QueryResult`, or what the rules let through of it).
struct QueryPage {
    /// The documents in order (projected when the query selects fields).
    var documents: [Document]
    /// Resumes after the last document; `nil` on the last page.
    var nextPageToken: String?

    init(documents: [Document], nextPageToken: String?) {
        self.documents = documents
        self.nextPageToken = nextPageToken
    }

    init(_ result: QueryResult) { self.init(documents: result.documents, nextPageToken: result.nextPageToken) }
}

/// The `list` decisions of one query: per document, or once per collection where the rules allow that.
struct ListFilter {
    let access: DataAccess
    let caller: Caller
    let rules: RuleSet
    let time = WallClock.nowMicros()
    /// The request's work budget; each evaluation per document costs `QueryBudget.ruleEvaluation`.
    let budget: QueryBudget?
    /// Per collection: the decision for all its documents, or `nil` when it depends on the document.
    private var collections: [CollectionPath: Bool?] = [:]

    init(access: DataAccess, caller: Caller, rules: RuleSet, budget: QueryBudget? = nil) {
        self.access = access
        self.caller = caller
        self.rules = rules
        self.budget = budget
    }

    /// Runs a store read of a query whose documents the rules decide one by one. A refusal for a missing index
    /// says that more than `indexes.maxScanRows` documents the query does not return exist; a caller the rules
    /// may refuse those documents must not learn that, so it is answered 403 `PERMISSION_DENIED` (as Firestore
    /// answers a query it cannot prove allowed). The index the query needs is in the server's log.
    func unproven<T>(_ source: StructuredQuery.Source, _ read: () throws -> T) throws -> T {
        do { return try read() } catch let error as APIError where error.code == .failedPrecondition {
            access.logger.debug("a query under per-document list rules needs an index: \(error.message)")
            let path: String
            switch source {
            case .collection(let collection): path = collection.description
            case .collectionGroup(let id): path = "the collection group " + id
            }
            throw access.denied(.list, path, reason: "the query needs an index")
        }
    }

    /// The decision for every document directly in `collection`, or `nil` when it depends on the document.
    mutating func decision(for collection: CollectionPath) throws -> Bool? {
        if let known = collections[collection] { return known }
        var decision: Bool? = nil
        if !rules.listDependsOnDocument(inCollection: collection.segments) {
            // Any document ID will do: the analysis showed the rules do not look at it (nor at `resource`).
            decision = try access.decide(
                caller, .list, path: collection.segments + ["_"], resource: nil, requestResource: nil, time: time,
                rules: rules, onLoop: false
            ).isAllowed
        }
        collections[collection] = .some(decision)
        return decision
    }

    /// Whether `document` (whole, as stored) may be listed.
    mutating func allows(_ document: Document) throws -> Bool {
        if let decision = try decision(for: document.path.collection) { return decision }
        if let budget, !budget.charge(QueryBudget.ruleEvaluation) { throw ScanPolicy.exhausted(budget) }
        return try access.decide(
            caller, .list, path: document.path.segments,
            resource: DataAccess.ruleDocument(document.path, document.fields), requestResource: nil, time: time,
            rules: rules, onLoop: false
        ).isAllowed
    }

    /// 403 for a collection the caller may not list at all.
    func denied(_ collection: CollectionPath) -> APIError {
        access.denied(.list, collection.description, reason: "no document of this collection may be listed")
    }
}
