import KuraCore
import KuraStore

/// The missing-index rule (`Configuration.maxScanRows`), like Firestore's: a query that a composite index could
/// serve, with none READY, may examine at most `maxScanRows` rows it does not return; beyond that it fails with
/// 400 `FAILED_PRECONDITION` and a message holding the index definition to add (logged once per definition). With
/// `autoCreateIndexes` the index is created instead, and the query answered without it meanwhile.
///
/// Queries no composite index could improve (a single-field index serves them, or they use `in`,
/// `array-contains-any`, metadata fields) are never refused, whatever they scan.
struct ScanPolicy {
    /// Counts the rows the query's driver examines (its budget stops a long walk early).
    var counter: SQLiteScanCounter?
    /// The index the error names.
    var suggestion: CompositeIndex?
    /// The suggested index when it exists but is still being built.
    var building: CompositeIndexStatus?
    /// Rows examined and not returned before the query fails.
    var maxWasted: Int64 = .max
    /// Reports the failure in the log, once per definition.
    var report: (@Sendable (String) -> Void)?

    /// Throws the missing-index error when the query examined more than `maxWasted` rows beyond `returned`.
    func check(_ query: NormalizedQuery, returned: Int64) throws {
        guard suggestion != nil, let counter, counter.rows - returned > maxWasted else { return }
        throw failure(query)
    }

    /// 400 `FAILED_PRECONDITION` naming the index, with the JSON to declare it.
    func failure(_ query: NormalizedQuery) -> KuraError {
        guard let suggestion else { return KuraError.unavailable("query scan budget exceeded") }
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
        return KuraError(code: "FAILED_PRECONDITION", status: 400, message: message)
    }
}

extension SQLiteDocumentStore {
    /// The policy for `query` under `configuration.maxScanRows` and `autoCreateIndexes`.
    func scanPolicy(_ query: NormalizedQuery) -> ScanPolicy {
        guard let maxScanRows = configuration.maxScanRows, compositeScan(query) == nil,
            let suggestion = CompositeIndex.suggested(for: query)
        else { return ScanPolicy() }
        let existing = composites.status(of: suggestion)
        if configuration.autoCreateIndexes {
            if existing == nil, let created = try? createIndex(suggestion) {
                configuration.log?(
                    "indexes.autoCreate: created index \(created.id) \(suggestion) for a query that needs it; "
                        + "declare it in kura.indexes.json: \(String(decoding: suggestion.json.jsonBytes, as: UTF8.self))"
                )
            }
            return ScanPolicy()
        }
        let log = configuration.log
        let reported = reportedSuggestions
        return ScanPolicy(
            counter: SQLiteScanCounter(budget: query.limit.map { Int64(maxScanRows) + Int64($0) } ?? .max),
            suggestion: suggestion, building: existing?.state == .creating ? existing : nil,
            maxWasted: Int64(maxScanRows),
            report: { text in
                let parts = text.split(separator: "\n", maxSplits: 1)
                if reported.first(String(parts[0])) { log?("missing index: " + String(parts.last ?? "")) }
            })
    }
}
