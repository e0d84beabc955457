import KuraCore
import KuraModel

extension ScanPolicy {
    /// This policy with the query's work budget (`NormalizedQuery.budget`) applied: the counter's budget becomes
    /// the smaller of the missing-index rule's and the rows the work budget still pays for, so the engine stops
    /// the walk at whichever comes first. Unchanged when the query has no budget.
    package func budgeted(_ query: NormalizedQuery) -> ScanPolicy {
        guard let budget = query.budget else { return self }
        var policy = self
        policy.budget = budget
        policy.perDocument = QueryBudget.perDocument(query)
        policy.budgetRows = budget.documentsLeft(perDocument: policy.perDocument)
        policy.counter = ScanCounter(budget: min(counter?.budget ?? .max, policy.budgetRows))
        return policy
    }

    /// The error for a walk the engine stopped at the counter's budget: 429 `RESOURCE_EXHAUSTED` when the work
    /// budget ran out, the missing-index error when the rule's budget did; `nil` when the counter did not stop it.
    package func stoppedWalk(_ query: NormalizedQuery) -> APIError? {
        guard let counter, counter.exceeded else { return nil }
        if counter.rows > budgetRows {
            budget?.charge(counter.rows.multipliedReportingOverflow(by: perDocument).partialValue)
            return Self.exhausted(budget)
        }
        return suggestion != nil ? failure(query) : nil
    }

    /// After a walk that finished: charges the rows it examined to the budget (429 `RESOURCE_EXHAUSTED` past it),
    /// then applies the missing-index rule (`check`).
    package func settle(_ query: NormalizedQuery, returned: Int64) throws {
        if let budget, let counter {
            let (units, overflow) = counter.rows.multipliedReportingOverflow(by: perDocument)
            if !budget.charge(overflow ? .max : units) { throw Self.exhausted(budget) }
        }
        try check(query, returned: returned)
    }

    /// The most rows worth counting after a walk: one past what either budget allows (saturating).
    package func examinedCap(returned: Int64) -> Int64 {
        func plus(_ a: Int64, _ b: Int64) -> Int64 {
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? .max : sum
        }
        return min(suggestion != nil ? plus(maxWasted, returned + 1) : .max, plus(budgetRows, 1))
    }

    /// 429 `RESOURCE_EXHAUSTED` for a query past its work budget.
    package static func exhausted(_ budget: QueryBudget?) -> APIError {
        APIError.resourceExhausted(
            "The query needs more work than query.maxWork allows (\(budget?.limit ?? 0) units: each document "
                + "examined costs 1 unit plus 1 per \(QueryBudget.bytesPerUnit) bytes of filter values, each rule "
                + "evaluation \(QueryBudget.ruleEvaluation)). Use more selective filters, smaller filter values, or "
                + "an index that serves the query.")
    }
}
