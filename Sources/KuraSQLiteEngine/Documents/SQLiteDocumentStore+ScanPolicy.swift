import KuraCore
import KuraModel
import KuraStore

extension SQLiteDocumentStore {
    /// The policy for `query` under `configuration.maxScanRows` and `autoCreateIndexes`.
    func scanPolicy(_ query: NormalizedQuery) -> ScanPolicy {
        .missingIndexRule(
            for: query, maxScanRows: configuration.maxScanRows, autoCreateIndexes: configuration.autoCreateIndexes,
            composites: composites, createIndex: createIndex, reported: reportedSuggestions, log: configuration.log)
    }
}
