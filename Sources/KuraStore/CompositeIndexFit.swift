import KuraCore
import KuraModel

/// How a query reads a composite index that fits it: one range of entry keys, walked forwards or backwards, whose
/// order is the query's order. Filters the index does not cover are checked per entry (`residual`).
///
/// An index fits a query when
/// - its scope and collection ID are the query's source;
/// - its leading fields are each pinned by the query: an `==` filter (ASCENDING/DESCENDING) or the
///   `array-contains` filter (CONTAINS);
/// - its remaining fields are the query's orderBy fields (those not pinned by `==`), in order, all in the
///   index's directions or all reversed, and the ID's direction agrees the same way.
///
/// Inequalities on the first ordered field, cursors and page tokens become bounds of the key range, so the walk
/// starts at the first result and every entry read is returned (unless a residual filter rejects it).
package struct CompositeScan {
    /// The index's stored identifier.
    package let indexID: Int64
    /// The definition.
    package let index: CompositeIndex
    /// Walk the keys in descending byte order.
    package var reverse = false
    /// `key >= bound` conditions.
    package var lowerBounds: [[UInt8]] = []
    /// `key < bound` conditions.
    package var upperBounds: [[UInt8]] = []
    /// The range is known to be empty (a cursor excludes everything).
    package var isEmpty = false
    /// Positions of the query's filters the range does not enforce.
    package var residual: [Int] = []
    /// The bytes every key of the range starts with (the pinned fields' components).
    package private(set) var prefix: [UInt8] = []

    /// The scan of `index` for `query`, or `nil` when the index does not fit.
    package init?(_ query: NormalizedQuery, index: CompositeIndex, id: Int64) {
        self.indexID = id
        self.index = index
        switch (query.source, index.scope) {
        case (.collection(let path), .collection):
            guard path.collectionID == index.collectionGroup else { return nil }
        case (.collectionGroup(let group), .collectionGroup):
            guard group == index.collectionGroup else { return nil }
        default: return nil
        }
        let pinned = Self.pinned(query)
        let ordered = query.orders.filter { order in
            if case .field(let path) = order.field { return pinned.equal[path] == nil }
            return true
        }
        // The pinned sort keys must all come first: the key has no component for them.
        guard let last = ordered.last, last.field == .id,
            query.orders.suffix(ordered.count).map(\.field) == ordered.map(\.field)
        else { return nil }
        let orderedFields = ordered.dropLast()
        guard orderedFields.count <= index.fields.count else { return nil }
        let prefixCount = index.fields.count - orderedFields.count
        var covered: Set<Int> = []
        var prefix: [UInt8] = []
        for field in index.fields.prefix(prefixCount) {
            switch field.mode {
            case .ascending, .descending:
                guard let (position, value) = pinned.equal[field.path] else { return nil }
                covered.insert(position)
                prefix += CompositeIndexKey.component(value, descending: field.mode == .descending)
            case .contains:
                guard let (position, value) = pinned.contains, pinned.containsPath == field.path else { return nil }
                covered.insert(position)
                prefix += IndexKey.encode(value)
            }
        }
        var reverse: Bool?
        for (order, field) in zip(orderedFields, index.fields.suffix(orderedFields.count)) {
            guard case .field(let path) = order.field, path == field.path, field.mode != .contains else { return nil }
            let flipped = (field.mode == .descending) != order.descending
            guard reverse == nil || reverse == flipped else { return nil }
            reverse = flipped
        }
        let idFlipped = index.nameDescending != last.descending
        guard reverse == nil || reverse == idFlipped else { return nil }
        self.reverse = idFlipped
        self.prefix = prefix
        lowerBounds = [prefix]
        if let upper = CompositeIndexKey.successor(prefix) { upperBounds = [upper] }
        if let first = orderedFields.first {
            let descending = index.fields[prefixCount].mode == .descending
            for (position, filter) in query.filters.enumerated() where filter.field == first.field {
                guard addRange(filter, prefix: prefix, descending: descending) else { continue }
                covered.insert(position)
            }
        }
        residual = query.filters.indices.filter { !covered.contains($0) }
        let components = ComponentCursor(query: query, pinned: pinned, index: index, prefix: prefix)
        if let start = query.start {
            apply(components.bytes(start.values), start: true, inclusive: start.inclusive)
        }
        if let end = query.end { apply(components.bytes(end.values), start: false, inclusive: end.inclusive) }
        if let after = query.after {
            var bytes = components.bytes(after.values)
            if case .bytes(let key) = bytes, index.scope == .collectionGroup {
                var tail = CompositeIndexKey.collectionComponent(after.path.collection.segments)
                if index.nameDescending { CompositeIndexKey.invert(&tail) }
                bytes = .bytes(key + tail)
            }
            apply(bytes, start: true, inclusive: false)
        }
    }

    /// The fields pinned to one value: `==` filters on data fields (the first per field) and the
    /// `array-contains` filter.
    private static func pinned(_ query: NormalizedQuery) -> Pinned {
        var pinned = Pinned()
        for (position, filter) in query.filters.enumerated() {
            guard case .field(let path) = filter.field else { continue }
            switch filter.op {
            case .equal where pinned.equal[path] == nil: pinned.equal[path] = (position, filter.value)
            case .arrayContains:
                pinned.contains = (position, filter.value)
                pinned.containsPath = path
            default: break
            }
        }
        return pinned
    }

    /// A range filter on the first ordered field as key bounds; `false` for other operators (`!=`, `not-in`,
    /// `in`, `==`: checked per entry).
    private mutating func addRange(_ filter: Filter, prefix: [UInt8], descending: Bool) -> Bool {
        let operand = IndexKey.encode(filter.value)
        let typeLow = IndexKey.typeLowerBound(filter.value)
        // Exclusive upper tag of the type: values of the type start with a byte below it.
        let typeHigh = IndexKey.typeUpperBound(filter.value)
        switch filter.op {
        case .greaterThan, .greaterThanOrEqual:
            addValueBound(
                filter.op == .greaterThan ? .after(operand) : .before(operand), start: true, prefix, descending)
            addValueBound(.before(typeHigh), start: false, prefix, descending)
        case .lessThan, .lessThanOrEqual:
            addValueBound(filter.op == .lessThan ? .before(operand) : .after(operand), start: false, prefix, descending)
            addValueBound(.before(typeLow), start: true, prefix, descending)
        default: return false
        }
        return true
    }

    /// A position between value encodings, in ascending value space: before or after every encoding that starts
    /// with the bytes.
    private enum Edge {
        case before([UInt8])
        case after([UInt8])
    }

    /// Bounds the component after `prefix` (ascending value space) at `edge`: values from it on (`start`) or
    /// up to it. A descending component is stored inverted, which swaps the sides.
    private mutating func addValueBound(_ edge: Edge, start: Bool, _ prefix: [UInt8], _ descending: Bool) {
        var edge = edge
        var start = start
        if descending {
            start.toggle()
            switch edge {
            case .before(var bytes):
                CompositeIndexKey.invert(&bytes)
                edge = .after(bytes)
            case .after(var bytes):
                CompositeIndexKey.invert(&bytes)
                edge = .before(bytes)
            }
        }
        switch edge {
        case .before(let bytes):
            if start { lowerBounds.append(prefix + bytes) } else { upperBounds.append(prefix + bytes) }
        case .after(let bytes):
            guard let next = CompositeIndexKey.successor(prefix + bytes) else {
                if !start { return }
                isEmpty = true
                return
            }
            if start { lowerBounds.append(next) } else { upperBounds.append(next) }
        }
    }

    /// A cursor (or page-token position) `bytes` of key components: in the query's order, results start at or
    /// after it (`start`), or end at or before it. Key order is the query's order, or its reverse.
    private mutating func apply(_ bytes: ComponentCursor.Bound, start: Bool, inclusive: Bool) {
        switch bytes {
        case .resultsAfter:
            if !start { isEmpty = true }
        case .resultsBefore:
            if start { isEmpty = true }
        case .bytes(let key):
            // In query order: start inclusive = from before(key); start exclusive = from after(key);
            // end inclusive = up to after(key); end exclusive = up to before(key).
            let edgeIsBefore = start == inclusive
            let lowerSide = start != reverse
            if edgeIsBefore != reverse {
                if lowerSide { lowerBounds.append(key) } else { upperBounds.append(key) }
            } else if let next = CompositeIndexKey.successor(key) {
                if lowerSide { lowerBounds.append(next) } else { upperBounds.append(next) }
            } else if lowerSide {
                isEmpty = true
            }
        }
    }
}

/// The query's pinned fields (see `CompositeScan.pinned`).
private struct Pinned {
    var equal: [FieldPath: (Int, JSONValue)] = [:]
    var contains: (Int, JSONValue)?
    var containsPath: FieldPath?
}

/// Cursor values (one per sort key, a prefix) as key bytes: the prefix, then the components of the sort keys
/// that are in the key. A sort key pinned by `==` is not in the key; there the cursor either equals the pinned
/// value (and the next value decides) or lies before or after every result.
private struct ComponentCursor {
    enum Bound {
        /// Every result comes after the cursor.
        case resultsAfter
        /// Every result comes before the cursor.
        case resultsBefore
        /// The cursor as a key prefix.
        case bytes([UInt8])
    }

    let query: NormalizedQuery
    let pinned: Pinned
    let index: CompositeIndex
    let prefix: [UInt8]

    func bytes(_ values: [JSONValue]) -> Bound {
        var key = prefix
        var fieldPosition = index.fields.count - orderedFieldCount
        for (position, value) in values.enumerated() where position < query.orders.count {
            let order = query.orders[position]
            switch order.field {
            case .field(let path):
                if let (_, pinnedValue) = pinned.equal[path] {
                    var comparison = ValueOrdering.compare(pinnedValue, value)
                    if order.descending { comparison = -comparison }
                    if comparison == 0 { continue }
                    return comparison > 0 ? .resultsAfter : .resultsBefore
                }
                let descending = index.fields[fieldPosition].mode == .descending
                key += CompositeIndexKey.component(value, descending: descending)
                fieldPosition += 1
            case .id:
                guard case .string(let id) = value else { return .bytes(key) }
                key += CompositeIndexKey.idComponent(id, descending: index.nameDescending)
            case .createTime, .updateTime:
                return .bytes(key)
            }
        }
        return .bytes(key)
    }

    private var orderedFieldCount: Int {
        query.orders.filter { order in
            if case .field(let path) = order.field { return pinned.equal[path] == nil }
            return false
        }.count
    }
}

extension CompositeIndex {
    /// The composite index that would serve `query` reading only the entries it returns: its `==` and `in`
    /// fields (ascending, in filter order), its `array-contains(-any)` field (CONTAINS), then its orderBy
    /// fields, with the ID in the query's direction (an `in` or `array-contains-any` filter is read as one range
    /// per value, `CompositeDisjunction`). `nil` when the query has nothing to pin (a single-field index serves
    /// it), or when no composite index can serve it entirely (metadata filters or orders, `or` filters).
    public static func suggested(for query: NormalizedQuery) -> CompositeIndex? {
        // An `or` is checked per entry whatever the index, so no index reads only the entries it returns.
        guard query.disjunctions.isEmpty else { return nil }
        let (collectionID, scope): (String, Scope) =
            switch query.source {
            case .collection(let path): (path.collectionID, .collection)
            case .collectionGroup(let id): (id, .collectionGroup)
            }
        var fields: [Field] = []
        var pinned: Set<FieldPath> = []
        // One `in`/`array-contains-any` is split into ranges; further ones are checked per entry.
        var split = false
        for filter in query.filters {
            guard case .field(let path) = filter.field else { return nil }
            switch filter.op {
            case .equal where !pinned.contains(path), .in where !pinned.contains(path) && !split:
                split = split || filter.op == .in
                pinned.insert(path)
                fields.append(Field(path, .ascending))
            case .arrayContains,
                .arrayContainsAny where !split:
                split = split || filter.op == .arrayContainsAny
                fields.append(Field(path, .contains))
            default: break
            }
        }
        guard !fields.isEmpty else { return nil }
        for order in query.orders.dropLast() {
            guard case .field(let path) = order.field else { return nil }
            if pinned.contains(path) { continue }
            fields.append(Field(path, order.descending ? .descending : .ascending))
        }
        guard let last = query.orders.last, last.field == .id, fields.count >= 2,
            let index = try? CompositeIndex(
                collectionGroup: collectionID, scope: scope, fields: fields, nameDescending: last.descending),
            let plan = CompositePlan(query, index: index, id: 0),
            plan.residual.allSatisfy({ [.notEqual, .notIn, .in, .arrayContainsAny].contains(query.filters[$0].op) })
        else { return nil }
        return index
    }
}
