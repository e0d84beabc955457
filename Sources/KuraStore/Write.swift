import KuraCore
import KuraModel

/// The outcome of one write of a successful commit.
public struct WriteResult: Sendable, Equatable {
    /// The document written.
    public var path: DocumentPath
    /// The document's version after the write; 0 for a delete.
    public var version: Int64
    /// The commit time (microseconds since the Unix epoch).
    public var updateTime: Int64

    /// Creates a write result.
    public init(path: DocumentPath, version: Int64, updateTime: Int64) {
        self.path = path
        self.version = version
        self.updateTime = updateTime
    }
}

/// Limits on commits.
public enum CommitLimits {
    /// Most writes in one commit.
    public static let maxWrites = 500
}

extension Write {
    /// The fields this write leaves on `existing` (`nil`: it deletes the document), by the model's `WriteApplier`;
    /// a refusal is thrown as the `APIError` it is answered with (412, 409, 404, 400).
    public func applied(to existing: Document?, at commitTime: Int64) throws -> JSONObject? {
        do { return try WriteApplier.apply(self, to: existing, commitTime: commitTime) } catch let refusal
            as WriteRefusal
        {
            throw APIError(refusal)
        }
    }
}
