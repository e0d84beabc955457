/// What the planner chose for one query and what it cost (`POST /api/query?explain=true`).
public struct QueryExplanation: Sendable {
    /// The index that drove the scan, in words (`composite index 3: todos (done ASC, createdAt ASC) COLLECTION`).
    public var index: String
    /// The composite index's id, when one was used.
    public var compositeIndexID: Int64?
    /// Rows the driving index (or table) yielded.
    public var rowsExamined: Int64
    /// Documents returned.
    public var rowsReturned: Int64
    /// The engine's own account of the plan (SQLite: its `EXPLAIN QUERY PLAN` lines).
    public var plan: [String]
    /// The composite index that would serve the query, when none did.
    public var suggestedIndex: CompositeIndex?

    /// Creates an explanation (engines report their plans with it).
    public init(
        index: String, compositeIndexID: Int64?, rowsExamined: Int64, rowsReturned: Int64, plan: [String],
        suggestedIndex: CompositeIndex?
    ) {
        self.index = index
        self.compositeIndexID = compositeIndexID
        self.rowsExamined = rowsExamined
        self.rowsReturned = rowsReturned
        self.plan = plan
        self.suggestedIndex = suggestedIndex
    }
}
