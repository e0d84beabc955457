import KuraCore
import KuraModel

/// How a query with `in` or `array-contains-any` on a field a composite index pins reads that index, as Firestore
/// does: the disjunction is split into one `CompositeScan` per distinct value (the filter read as `==`, or as
/// `array-contains`, of that value), every range bounded alike by the query's range filters, cursors and page
/// token, and the ranges are merged in the query's order (`CompositeMerge`).
///
/// Within one range the keys are the pinned prefix (which holds the value) followed by the ordered fields, the ID
/// and, for collection groups, the collection path: the bytes after the prefix are the entry's position in the
/// query's order, comparable across ranges. When the split field is also a sort key (`cat in [3, 7] order by cat,
/// n`), the ranges follow one another instead, in the order of their values.
package struct CompositeDisjunction {
    /// One value's range.
    package struct Range {
        /// The query with the split filter replaced by this value's `==` or `array-contains` filter (at the same
        /// position, so filter positions mean the same in every range).
        package var query: NormalizedQuery
        /// The walk of this value's range.
        package var scan: CompositeScan
    }

    /// The index's stored identifier.
    package let indexID: Int64
    /// The definition.
    package let index: CompositeIndex
    /// Position of the split `in` or `array-contains-any` filter among the query's filters.
    package let filter: Int
    /// The field of that filter.
    package let field: QueryField
    /// The ranges of the distinct values, in the query's order of their values when `concatenated`; ranges a
    /// cursor leaves empty are left out.
    package let ranges: [Range]
    /// The split field is a sort key: every entry of a range comes before every entry of the next.
    package let concatenated: Bool
    /// `array-contains-any`: a document whose array holds several of the values is in several ranges, and is
    /// returned (and counted) once.
    package let deduplicates: Bool
    /// Every range is walked in descending byte order.
    package let reverse: Bool
    /// Positions of the query's filters the ranges do not enforce (the same for every range).
    package let residual: [Int]

    /// The split of `query` over `index` that leaves fewest filters to check per entry, or `nil` when no
    /// `in`/`array-contains-any` filter of the query is on a field the index pins.
    package init?(_ query: NormalizedQuery, index: CompositeIndex, id: Int64) {
        var best: CompositeDisjunction?
        for position in query.filters.indices {
            guard let candidate = CompositeDisjunction(query, index: index, id: id, splitting: position) else {
                continue
            }
            if best == nil || candidate.residual.count < best!.residual.count { best = candidate }
        }
        guard let best else { return nil }
        self = best
    }

    private init?(_ query: NormalizedQuery, index: CompositeIndex, id: Int64, splitting position: Int) {
        let split = query.filters[position]
        guard split.op == .in || split.op == .arrayContainsAny, case .field = split.field,
            var values = split.value.arrayValue, !values.isEmpty
        else { return nil }
        // One range per distinct value: `1` and `1.0` are one value (one encoding), as for `==`.
        var seen: Set<[UInt8]> = []
        values = values.filter { seen.insert(IndexKey.encode($0)).inserted }
        let sortKey = query.orders.first { $0.field == split.field }
        if let sortKey {
            values.sort { lhs, rhs in
                let order = ValueOrdering.compare(lhs, rhs)
                return sortKey.descending ? order > 0 : order < 0
            }
        }
        var ranges: [Range] = []
        for value in values {
            var single = query
            single.filters[position] = Filter(split.field, split.op == .in ? .equal : .arrayContains, value)
            guard let scan = CompositeScan(single, index: index, id: id), !scan.residual.contains(position) else {
                return nil
            }
            ranges.append(Range(query: single, scan: scan))
        }
        indexID = id
        self.index = index
        filter = position
        field = split.field
        concatenated = sortKey != nil
        deduplicates = split.op == .arrayContainsAny
        reverse = ranges[0].scan.reverse
        residual = ranges[0].scan.residual
        self.ranges = ranges.filter { !$0.scan.isEmpty }
    }
}

/// How a query reads a composite index that fits it: one range of keys, or one range per value of an `in` or
/// `array-contains-any` filter, merged. Engines choose with `best(_:among:)` and run what it returns.
package enum CompositePlan {
    /// One range, in the query's order (or its reverse).
    case range(CompositeScan)
    /// One range per value, merged in the query's order.
    case ranges(CompositeDisjunction)

    /// The way `index` serves `query` leaving fewest filters to check per entry (one range on a tie), or `nil`
    /// when it does not fit.
    package init?(_ query: NormalizedQuery, index: CompositeIndex, id: Int64) {
        let single = CompositeScan(query, index: index, id: id)
        let split = CompositeDisjunction(query, index: index, id: id)
        switch (single, split) {
        case (let single?, let split?):
            self = split.residual.count < single.residual.count ? .ranges(split) : .range(single)
        case (let single?, nil): self = .range(single)
        case (nil, let split?): self = .ranges(split)
        case (nil, nil): return nil
        }
    }

    /// The plan over the index among `indexes` that leaves fewest filters to check per entry.
    package static func best(
        _ query: NormalizedQuery, among indexes: [(id: Int64, index: CompositeIndex)]
    ) -> CompositePlan? {
        var best: CompositePlan?
        for (id, index) in indexes {
            guard let plan = CompositePlan(query, index: index, id: id) else { continue }
            if best == nil || plan.residual.count < best!.residual.count { best = plan }
        }
        return best
    }

    /// The plan over the READY index of `catalog` (over the query's collection ID) that leaves fewest filters to
    /// check per entry, if one fits.
    package static func best(_ query: NormalizedQuery, in catalog: CompositeIndexCatalog) -> CompositePlan? {
        let collectionID =
            switch query.source {
            case .collection(let path): path.collectionID
            case .collectionGroup(let id): id
            }
        return best(query, among: catalog.ready(for: collectionID))
    }

    /// The index's stored identifier.
    package var indexID: Int64 {
        switch self {
        case .range(let scan): scan.indexID
        case .ranges(let split): split.indexID
        }
    }

    /// The definition.
    package var index: CompositeIndex {
        switch self {
        case .range(let scan): scan.index
        case .ranges(let split): split.index
        }
    }

    /// Positions of the query's filters checked per entry.
    package var residual: [Int] {
        switch self {
        case .range(let scan): scan.residual
        case .ranges(let split): split.residual
        }
    }

    /// `composite index 3: items (cat ASC, n DESC) COLLECTION`, plus the number of merged ranges.
    package var description: String {
        switch self {
        case .range(let scan): "composite index \(scan.indexID): \(scan.index)"
        case .ranges(let split):
            "composite index \(split.indexID): \(split.index), \(split.ranges.count) ranges "
                + (split.concatenated ? "read in turn" : "merged") + " (one per value of \(split.field))"
        }
    }
}
