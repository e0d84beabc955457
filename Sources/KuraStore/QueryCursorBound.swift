import KuraModel

/// One bound a query's cursors put on its sort keys: the rows after (or before) `values` in the mixed directions
/// of `orders`. `Value` is the engine's SQL value type; `keys` are the SQL expressions of the sort keys.
package struct QueryCursorBound<Value> {
    /// The cursor's key values, one per sort key it names (possibly fewer than `keys`).
    package var values: [Value]
    /// Whether rows equal to the cursor are kept.
    package var inclusive: Bool
    /// Rows after the cursor (`startAt`/`startAfter`/a page token) rather than before it (`endAt`/`endBefore`).
    package var after: Bool
    /// The sort keys' SQL expressions.
    package var keys: [String]
    /// The sort keys' directions.
    package var orders: [Order]

    /// The bounds of `query`'s cursors, in order: start, end, and a page token's position (which also orders
    /// by the collection's path key in a collection-group query, `pathKeyColumn`). `keyValue` converts a cursor
    /// value of a sort key to its SQL value, `pathKey` a collection path's segments.
    package static func bounds(
        of query: NormalizedQuery, keys: [String], pathKeyColumn: String, keyValue: (JSONValue, Order) -> Value,
        pathKey: ([String]) -> Value
    ) -> [QueryCursorBound] {
        var bounds: [QueryCursorBound] = []
        func converted(_ values: [JSONValue], _ orders: [Order]) -> [Value] {
            values.enumerated().map { keyValue($0.element, orders[$0.offset]) }
        }
        if let start = query.start {
            bounds.append(
                QueryCursorBound(
                    values: converted(start.values, query.orders), inclusive: start.inclusive, after: true,
                    keys: keys, orders: query.orders))
        }
        if let end = query.end {
            bounds.append(
                QueryCursorBound(
                    values: converted(end.values, query.orders), inclusive: end.inclusive, after: false, keys: keys,
                    orders: query.orders))
        }
        if let after = query.after {
            var values = converted(after.values, query.orders)
            var keys = keys
            var orders = query.orders
            if case .collectionGroup = query.source {
                keys.append(pathKeyColumn)
                orders.append(Order(.id, descending: orders.last?.descending ?? false))
                values.append(pathKey(after.path.collection.segments))
            }
            bounds.append(QueryCursorBound(values: values, inclusive: false, after: true, keys: keys, orders: orders))
        }
        return bounds
    }

    /// `(keys…) > (params…)` (or `<`, `>=`, `<=`) in the mixed directions, as nested ORs (`condition`), and a
    /// plain bound on the first key (`firstKey`) with which an index scan can seek to the cursor. `params` are
    /// the placeholders of `values`; `true`/`false` are the dialect's boolean literals.
    package func sql(params: [String], true yes: String, false no: String) -> (firstKey: String, condition: String) {
        func build(_ k: Int) -> String {
            if k == params.count { return inclusive ? yes : no }
            let forward = after != orders[k].descending
            let op = forward ? ">" : "<"
            return "(\(keys[k]) \(op) \(params[k]) OR (\(keys[k]) = \(params[k]) AND \(build(k + 1))))"
        }
        let forward = after != orders[0].descending
        return ("\(keys[0]) \(forward ? ">=" : "<=") \(params[0])", build(0))
    }
}
