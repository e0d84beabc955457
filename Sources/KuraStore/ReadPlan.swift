/// A query plan that is one statement, as `ReadPlan` describes it.
package protocol StatementPlan {
    /// What drives the scan, for `explain`.
    var driverDescription: String { get }
    /// The composite index range the statement walks, if any.
    var composite: CompositeScan? { get }
}

/// A query plan that reads one range of a composite index per value of an `in` or `array-contains-any` filter
/// and merges them (`CompositeDisjunction`), as `ReadPlan` describes it.
package protocol MergePlan {
    /// The engine's single-statement plan, one per range.
    associatedtype Statement: StatementPlan
    /// What drives the scan, for `explain`.
    var driverDescription: String { get }
    /// The ranges and the index they are in.
    var disjunction: CompositeDisjunction { get }
    /// The statement an engine's `EXPLAIN` describes: the first range's (every range has the same plan).
    var representative: Statement? { get }
}

/// How an engine reads a query: one statement, or one per range of a composite index, merged. What `explain`
/// reports about it is the same in every engine.
package enum ReadPlan<Merge: MergePlan> {
    case statement(Merge.Statement)
    case merge(Merge)

    /// What drives the scan, for `explain`.
    package var driverDescription: String {
        switch self {
        case .statement(let plan): plan.driverDescription
        case .merge(let plan): plan.driverDescription
        }
    }

    /// The composite index read, if any.
    package var compositeIndexID: Int64? {
        switch self {
        case .statement(let plan): plan.composite?.indexID
        case .merge(let plan): plan.disjunction.indexID
        }
    }

    /// The statement the engine's `EXPLAIN` describes (a merge's ranges all have the first one's plan).
    package var explained: Merge.Statement? {
        switch self {
        case .statement(let plan): plan
        case .merge(let plan): plan.representative
        }
    }
}
