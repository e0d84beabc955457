import KuraModel

/// What drives a single-statement query plan's walk, the same choice in every engine: the first orderBy field's
/// single-field index rows in order; for an ID order, the index range of an `==`/`array-contains` filter (its
/// matches sorted); else the documents table in its own (ID or time) order. Engines turn the choice into SQL.
package enum QueryDriver {
    /// The driver of `query` when no equality driver was chosen (`equalityCandidate`): the field whose index is
    /// walked in order, or the filter whose range is read, or neither (the documents table).
    package static func ordered(_ query: NormalizedQuery) -> (field: FieldPath?, filter: Int?) {
        switch query.orders[0].field {
        case .field(let path):
            return (path, nil)
        case .id:
            let filter = query.filters.firstIndex { filter in
                if case .field = filter.field { return filter.op == .equal || filter.op == .arrayContains }
                return false
            }
            return (nil, filter)
        case .createTime, .updateTime:
            return (nil, nil)
        }
    }

    /// Walking the first orderBy field's index with an `==` filter on another field examines about
    /// `limit / selectivity` rows: a long walk (a scan, when nothing matches) for a rare value. This is that
    /// filter, whose matches can instead be counted (up to a cap, index-only) and, if few, driven and sorted.
    package static func equalityCandidate(_ query: NormalizedQuery) -> Int? {
        guard case .field(let orderPath) = query.orders[0].field else { return nil }
        return query.filters.firstIndex { filter in
            guard case .field(let path) = filter.field, path != orderPath else { return false }
            return filter.op == .equal || filter.op == .arrayContains
        }
    }

    /// What drives the scan, for `explain`: a composite index range, or a single-field index (walked in order, or
    /// one filter's range), or the documents table.
    package static func description(
        _ query: NormalizedQuery, composite: CompositeScan?, field: FieldPath?, filter: Int?
    ) -> String {
        if let composite { return "composite index \(composite.indexID): \(composite.index)" }
        if let field { return "single-field index on \(field) (ordered walk)" }
        if let filter, case .field(let path) = query.filters[filter].field {
            return "single-field index on \(path) (\(query.filters[filter].op.rawValue) range)"
        }
        return "documents table (\(query.orders[0].field) order)"
    }
}
