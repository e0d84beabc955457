import KuraCore
import KuraModel
import KuraStore

extension PostgresDocumentStore {
    /// The policy for `query` under `configuration.maxScanRows` and `autoCreateIndexes` (the same rule as the
    /// SQLite engine's, `ScanPolicy`).
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
            counter: ScanCounter(), suggestion: suggestion, building: existing?.state == .creating ? existing : nil,
            maxWasted: Int64(maxScanRows),
            report: { text in
                let parts = text.split(separator: "\n", maxSplits: 1)
                if reported.first(String(parts[0])) {
                    log?("missing index: " + String(parts.last ?? ""))
                }
            })
    }
}
