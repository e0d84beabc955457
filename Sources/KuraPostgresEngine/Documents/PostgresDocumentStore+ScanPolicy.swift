import KuraCore
import KuraModel
import KuraStore

extension PostgresDocumentStore {
    /// The policy for `query` under `configuration.maxScanRows` and `autoCreateIndexes` (the rule every engine applies,
    /// `ScanPolicy.missingIndexRule`).
    func scanPolicy(_ query: NormalizedQuery) -> ScanPolicy {
        .missingIndexRule(
            for: query, maxScanRows: configuration.maxScanRows, autoCreateIndexes: configuration.autoCreateIndexes,
            composites: composites, createIndex: createIndex, reported: reportedSuggestions, log: configuration.log)
    }
}
