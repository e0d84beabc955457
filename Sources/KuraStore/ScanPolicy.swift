import KuraCore
import KuraModel

/// The missing-index rule (`StoreConfiguration.maxScanRows`), the same for every engine, like Firestore's: a query
/// that a composite index could serve, with none READY, may examine at most `maxScanRows` rows it does not return;
/// beyond that it fails with 400 `FAILED_PRECONDITION` and a message holding the index definition to add (logged
/// once per definition). With `autoCreateIndexes` the index is created instead, and the query answered without it
/// meanwhile. The engine counts the rows its walk examines into `counter` and stops it past the budget.
///
/// Queries no composite index could improve (a single-field index serves them, or they filter or order on
/// metadata fields) are never refused, whatever they scan. `in` and `array-contains-any` on a field of the
/// suggested index are served from it one range per value (`CompositeDisjunction`), so they can be refused too.
package struct ScanPolicy {
    /// Counts the rows the query's driver examines (its budget stops a long walk early).
    package var counter: ScanCounter?
    /// The index the error names.
    package var suggestion: CompositeIndex?
    /// The suggested index when it exists but is still being built.
    package var building: CompositeIndexStatus?
    /// Rows examined and not returned before the query fails.
    package var maxWasted: Int64 = .max
    /// Reports the failure in the log, once per definition.
    package var report: (@Sendable (String) -> Void)?
    /// The request's work budget (`budgeted`), charged `perDocument` units per row the driver examines.
    package var budget: QueryBudget?
    /// Units one examined row costs (`QueryBudget.perDocument`).
    package var perDocument: Int64 = 1
    /// Rows the budget had room for when the query started (`.max` without a budget).
    package var budgetRows: Int64 = .max

    /// Throws the missing-index error when the query examined more than `maxWasted` rows beyond `returned`.
    package func check(_ query: NormalizedQuery, returned: Int64) throws {
        guard suggestion != nil, let counter, counter.rows - returned > maxWasted else { return }
        throw failure(query)
    }

    /// 400 `FAILED_PRECONDITION` naming the index, with the JSON to declare it.
    package func failure(_ query: NormalizedQuery) -> APIError {
        guard let suggestion else { return APIError.unavailable("query scan budget exceeded") }
        let definition = String(decoding: suggestion.json.jsonBytes, as: UTF8.self)
        let message: String
        if let building {
            message =
                "The query requires an index that is still being built: \(suggestion) (id \(building.id), "
                + "\(building.documentsScanned) documents so far). Retry when GET /api/admin/indexes shows it READY."
        } else {
            message =
                "The query requires an index: \(suggestion). Without it the query examines more than "
                + "\(maxWasted) documents it does not return (indexes.maxScanRows). Add this to the \"indexes\" "
                + "array of kura.indexes.json in the data directory, or POST it to /api/admin/indexes: \(definition)"
        }
        report?(definition + "\n" + message)
        return APIError.needsIndex(message)
    }

    /// A policy (the defaults refuse nothing).
    package init(
        counter: ScanCounter? = nil, suggestion: CompositeIndex? = nil, building: CompositeIndexStatus? = nil,
        maxWasted: Int64 = .max, report: (@Sendable (String) -> Void)? = nil
    ) {
        self.counter = counter
        self.suggestion = suggestion
        self.building = building
        self.maxWasted = maxWasted
        self.report = report
    }
}

/// Rows a query's driver visited, counted by the engine as it walks; past `budget` the engine stops the walk.
package final class ScanCounter {
    /// Rows counted so far.
    package var rows: Int64 = 0
    /// Rows after which the statement fails.
    package let budget: Int64

    /// A counter that stops the walk after `budget` rows.
    package init(budget: Int64 = .max) { self.budget = budget }

    /// Whether the walk stopped because the budget ran out.
    package var exceeded: Bool { rows > budget }
}
