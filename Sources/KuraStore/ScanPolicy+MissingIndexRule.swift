import Foundation
import KuraModel
import Synchronization

extension ScanPolicy {
    /// The policy for `query` under an engine's `maxScanRows` (`nil`: never refuse) and `autoCreateIndexes`: none
    /// when no composite index could improve the query or a READY one of `composites` already serves it; with
    /// `autoCreateIndexes`, none either, after creating the suggested index if there is none yet (`createIndex`,
    /// reported to `log`); else the suggested index with a counter whose budget ends the walk past `maxScanRows`
    /// rows beyond the query's limit, each suggestion reported to `log` once (`reported`).
    package static func missingIndexRule(
        for query: NormalizedQuery, maxScanRows: Int?, autoCreateIndexes: Bool,
        composites: CompositeIndexCatalog,
        createIndex: (CompositeIndex) throws -> CompositeIndexStatus, reported: SuggestionLog,
        log: (@Sendable (String) -> Void)?
    ) -> ScanPolicy {
        guard let maxScanRows, CompositePlan.best(query, in: composites) == nil,
            let suggestion = CompositeIndex.suggested(for: query)
        else {
            return ScanPolicy()
        }
        let existing = composites.status(of: suggestion)
        if autoCreateIndexes {
            if existing == nil, let created = try? createIndex(suggestion) {
                log?(
                    "indexes.autoCreate: created index \(created.id) \(suggestion) for a query that needs it; "
                        + "declare it in kura.indexes.json: \(String(decoding: suggestion.json.jsonBytes, as: UTF8.self))"
                )
            }
            return ScanPolicy()
        }
        return ScanPolicy(
            counter: ScanCounter(budget: query.limit.map { Int64(maxScanRows) + Int64($0) } ?? .max),
            suggestion: suggestion, building: existing?.state == .creating ? existing : nil,
            maxWasted: Int64(maxScanRows),
            report: { text in
                let parts = text.split(separator: "\n", maxSplits: 1)
                if reported.first(String(parts[0])) { log?("missing index: " + String(parts.last ?? "")) }
            })
    }
}

/// Suggested index definitions already reported, so each is logged once.
package final class SuggestionLog: Sendable {
    private let seen = Mutex<Set<String>>([])

    /// An empty log.
    package init() {}

    /// `true` the first time `key` is seen.
    package func first(_ key: String) -> Bool { seen.withLock { $0.insert(key).inserted } }
}
