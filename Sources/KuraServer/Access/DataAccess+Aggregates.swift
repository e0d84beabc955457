import KuraCore
import KuraModel
import KuraStore

extension DataAccess {
    /// The aggregations of the documents matching `query` that `caller` may list (cursors and a given limit
    /// apply), by alias, under the same rules and work budget as `count`. Counts alone are `count`'s; a sum or
    /// an average reads every document the query matches, in pages.
    func aggregate(
        _ query: StructuredQuery, _ aggregations: [(alias: String, aggregation: Aggregation)], caller: Caller
    ) throws -> JSONObject {
        if aggregations.allSatisfy({ $0.aggregation == .count }) {
            let count = JSONValue.int(try self.count(query, caller: caller))
            return JSONObject(aggregations.map { ($0.alias, count) })
        }
        var accumulators = aggregations.map { AggregateAccumulator($0.aggregation) }
        var inner = query
        inner.select = nil
        inner.pageToken = nil
        var filter: ListFilter?
        var everyDocument = true
        if case .admin = caller {
        } else {
            inner.budget = inner.budget ?? queryLimits.budget()
            var listed = ListFilter(access: self, caller: caller, rules: rules.current.ruleSet, budget: inner.budget)
            if case .collection(let collection) = query.source, let allowed = try listed.decision(for: collection) {
                guard allowed else { throw listed.denied(collection) }
            } else {
                everyDocument = false
            }
            filter = listed
        }
        let limit = query.limit.map(Int64.init) ?? .max
        var counted: Int64 = 0
        while counted < limit {
            inner.limit = everyDocument ? Int(min(limit - counted, Int64(Self.filterBatch))) : Self.filterBatch
            let page: QueryResult
            if everyDocument {
                page = try store.query(inner)
            } else {
                page = try filter!.unproven(query.source) { try store.query(inner) }
            }
            for document in page.documents where counted < limit {
                if !everyDocument, !(try filter!.allows(document)) { continue }
                counted += 1
                for index in accumulators.indices { accumulators[index].add(document) }
            }
            guard let next = page.nextPageToken else { break }
            inner.pageToken = next
        }
        return JSONObject(zip(aggregations, accumulators).map { ($0.alias, $1.value) })
    }
}
