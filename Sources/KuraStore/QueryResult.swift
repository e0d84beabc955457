import KuraModel

/// One page of query results.
public struct QueryResult: Sendable {
    /// The matching documents in order (projected when the query selects fields).
    public var documents: [Document]
    /// Pass as `StructuredQuery.pageToken` to continue; `nil` when the query has no limit or fewer results came back.
    public var nextPageToken: String?

    /// Creates a page of results.
    public init(documents: [Document], nextPageToken: String? = nil) {
        self.documents = documents
        self.nextPageToken = nextPageToken
    }
}
