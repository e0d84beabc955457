/// Evaluates a query against documents in memory, with exactly the semantics of the SQLite engine
/// (`SQLiteQueryPlan`): which documents a query matches, in which order, and where its cursors cut.
///
/// Realtime listeners use it to decide, from a change-log entry alone, whether a document entered, left or moved
/// within a query's results. The rules it follows (docs/api.md, "Queries"):
/// - the document must be directly in the query's collection (or in any collection with the group's ID);
/// - every filter holds (an `or` when one of its conditions does); a filter on a missing field never holds (also `!=` and `not-in`); range operators only
///   match values of their operand's type; `array-contains(-any)` look at the elements of an array field;
/// - every data field the query orders by is present (a document without it is not in the results);
/// - the start and end cursors (and a page token) hold, comparing the document's sort keys in the query's order.
///
/// `limit` is not applied here: it is a property of a result list, not of one document.
public struct QueryMatcher: Sendable {
    /// The validated query.
    public let query: NormalizedQuery

    /// Validates `query` (400 `INVALID_QUERY` like the engines).
    public init(_ query: StructuredQuery) throws {
        self.query = try NormalizedQuery(query)
    }

    /// A matcher for an already validated query.
    public init(normalized: NormalizedQuery) {
        self.query = normalized
    }

    /// Whether a document at `path` belongs to the query's source (its collection or collection group).
    public func inSource(_ path: DocumentPath) -> Bool {
        let count = path.segments.count
        switch query.source {
        case .collection(let collection):
            guard count == collection.segments.count + 1 else { return false }
            // Compare from the collection ID backwards: paths of one app share long prefixes.
            var index = count - 2
            while index >= 0 {
                if !path.segments[index].bytesEqual(collection.segments[index]) { return false }
                index -= 1
            }
            return true
        case .collectionGroup(let id):
            return path.segments[count - 2].bytesEqual(id)
        }
    }

    /// Whether `document` is in the query's results (ignoring `limit`).
    public func matches(_ document: Document) -> Bool {
        guard inSource(document.path) else { return false }
        for filter in query.filters where !Self.holds(filter, on: document) { return false }
        for tree in query.disjunctions where !Self.holds(tree, on: document) { return false }
        for order in query.orders {
            if case .field(let path) = order.field, document.fields.value(at: path) == nil { return false }
        }
        if let start = query.start {
            let order = compareToCursor(document, start.values)
            if order < 0 || (order == 0 && !start.inclusive) { return false }
        }
        if let end = query.end {
            let order = compareToCursor(document, end.values)
            if order > 0 || (order == 0 && !end.inclusive) { return false }
        }
        if let after = query.after {
            var order = compareToCursor(document, after.values)
            if order == 0, case .collectionGroup = query.source {
                order = compareCollections(document.path, after.path)
            }
            if order <= 0 { return false }
        }
        return true
    }

    /// -1, 0 or 1 as `lhs` comes before, at or after `rhs` in the query's order. Total for documents the query
    /// matches: the order ends with `id`, and for collection groups with the collection path.
    public func compare(_ lhs: Document, _ rhs: Document) -> Int {
        for order in query.orders {
            var result = Self.compareKey(key(lhs, order.field), key(rhs, order.field), order.field)
            if order.descending { result = -result }
            if result != 0 { return result }
        }
        if case .collectionGroup = query.source { return compareCollections(lhs.path, rhs.path) }
        return 0
    }

    /// Whether `lhs` comes strictly before `rhs` in the query's order.
    public func precedes(_ lhs: Document, _ rhs: Document) -> Bool { compare(lhs, rhs) < 0 }

    // MARK: Sort keys

    /// The value a document sorts by for `field`: data fields as stored (`nil` when missing), `id` as a string,
    /// the times as integer microseconds.
    private func key(_ document: Document, _ field: QueryField) -> JSONValue? {
        switch field {
        case .id: .string(document.id)
        case .createTime: .int(document.createTime)
        case .updateTime: .int(document.updateTime)
        case .field(let path): document.fields.value(at: path)
        }
    }

    private static func compareKey(_ lhs: JSONValue?, _ rhs: JSONValue?, _ field: QueryField) -> Int {
        switch (lhs, rhs) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case (let l?, let r?):
            if case .id = field, case .string(let a) = l, case .string(let b) = r { return compareBytes(a, b) }
            return ValueOrdering.compare(l, r)
        }
    }

    /// The document's sort keys against a cursor's values (a prefix of the keys), in the query's directions.
    private func compareToCursor(_ document: Document, _ values: [JSONValue]) -> Int {
        for (position, value) in values.enumerated() where position < query.orders.count {
            let order = query.orders[position]
            var result = Self.compareKey(key(document, order.field), value, order.field)
            if order.descending { result = -result }
            if result != 0 { return result }
        }
        return 0
    }

    /// The collection-path tie-break of collection-group queries, in the direction of the last sort key.
    private func compareCollections(_ lhs: DocumentPath, _ rhs: DocumentPath) -> Int {
        let l = lhs.segments.dropLast()
        let r = rhs.segments.dropLast()
        var result = 0
        for (a, b) in zip(l, r) where !a.bytesEqual(b) {
            result = Self.compareBytes(a, b)
            break
        }
        if result == 0 && l.count != r.count { result = l.count < r.count ? -1 : 1 }
        return query.orders.last?.descending == true ? -result : result
    }

    private static func compareBytes(_ lhs: String, _ rhs: String) -> Int {
        if lhs.bytesEqual(rhs) { return 0 }
        return lhs.bytesPrecede(rhs) ? -1 : 1
    }

    // MARK: Filters

    /// Whether a composite filter holds on `document` (each field filter as `holds(_:on:)` has it).
    static func holds(_ tree: FilterTree, on document: Document) -> Bool {
        switch tree {
        case .filter(let filter): holds(filter, on: document)
        case .or(let children): children.contains { holds($0, on: document) }
        case .and(let children): children.allSatisfy { holds($0, on: document) }
        }
    }

    /// Whether `filter` holds on `document`.
    static func holds(_ filter: Filter, on document: Document) -> Bool {
        switch filter.field {
        case .field(let path):
            guard let value = document.fields.value(at: path) else { return false }
            return holds(filter.op, value, filter.value)
        case .id:
            return holdsMetadata(filter, .string(document.id))
        case .createTime:
            return holdsMetadata(filter, .int(document.createTime))
        case .updateTime:
            return holdsMetadata(filter, .int(document.updateTime))
        }
    }

    /// A filter on a data field's (present) value.
    private static func holds(_ op: Filter.Operator, _ value: JSONValue, _ operand: JSONValue) -> Bool {
        switch op {
        case .equal: return ValueOrdering.compare(value, operand) == 0
        case .notEqual: return ValueOrdering.compare(value, operand) != 0
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            // Range filters only match their operand's own type (the index bounds the scan to that type's range).
            guard ValueOrdering.typeRank(value) == ValueOrdering.typeRank(operand) else { return false }
            return satisfies(op, ValueOrdering.compare(value, operand))
        case .in:
            return (operand.arrayValue ?? []).contains { ValueOrdering.compare(value, $0) == 0 }
        case .notIn:
            return !(operand.arrayValue ?? []).contains { ValueOrdering.compare(value, $0) == 0 }
        case .arrayContains:
            guard case .array(let elements) = value else { return false }
            return elements.contains { ValueOrdering.compare($0, operand) == 0 }
        case .arrayContainsAny:
            guard case .array(let elements) = value else { return false }
            let wanted = operand.arrayValue ?? []
            return elements.contains { element in wanted.contains { ValueOrdering.compare(element, $0) == 0 } }
        }
    }

    /// A filter on `id` (strings, compared by UTF-8 bytes like SQLite's text) or a time (integer microseconds).
    /// The operands were converted by `NormalizedQuery`, so a type mismatch cannot match.
    private static func holdsMetadata(_ filter: Filter, _ value: JSONValue) -> Bool {
        func compare(_ operand: JSONValue) -> Int? {
            switch (value, operand) {
            case (.string(let a), .string(let b)): compareBytes(a, b)
            case (.int(let a), .int(let b)): a == b ? 0 : (a < b ? -1 : 1)
            default: nil
            }
        }
        switch filter.op {
        case .in, .notIn:
            let found = (filter.value.arrayValue ?? []).contains { compare($0) == 0 }
            return filter.op == .in ? found : !found
        case .arrayContains, .arrayContainsAny:
            return false
        default:
            guard let order = compare(filter.value) else { return false }
            return satisfies(filter.op, order)
        }
    }

    private static func satisfies(_ op: Filter.Operator, _ order: Int) -> Bool {
        switch op {
        case .equal: order == 0
        case .notEqual: order != 0
        case .lessThan: order < 0
        case .lessThanOrEqual: order <= 0
        case .greaterThan: order > 0
        case .greaterThanOrEqual: order >= 0
        default: false
        }
    }
}
