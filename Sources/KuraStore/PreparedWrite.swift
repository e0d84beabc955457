import KuraCore
import KuraModel

/// A write plus the work on it that does not need the database, done before it reaches the writer thread.
///
/// The writer is the one serial part of every commit (bench/docs.sh, creates: it was the bottleneck at ~90% of a
/// core), so whatever can be computed from the request alone is computed by the submitting thread: when a write's
/// resulting fields do not depend on the stored document or the commit time (a create or a non-merging set,
/// without transforms), their validated encoding and index entries are ready before the writer sees them.
package struct PreparedWrite: Sendable {
    package let write: Write
    /// The resulting fields' encoding and index entries, when known in advance.
    package let outcome: (data: [UInt8], entries: [IndexEntry])?

    /// Throws the validation errors of `DocumentLimits.validate` for writes whose outcome is known in advance.
    package init(_ write: Write) throws {
        self.write = write
        guard write.transforms.isEmpty else {
            outcome = nil
            return
        }
        switch write.operation {
        case .create(let fields), .set(let fields, merge: false):
            outcome = (try DocumentLimits.validate(fields), IndexEntries.of(fields))
        default:
            outcome = nil
        }
    }

    /// The writes of one commit, prepared. Throws 400 `INVALID_ARGUMENT` past `CommitLimits.maxWrites` writes, and
    /// what `init` throws.
    package static func commit(_ writes: [Write]) throws -> [PreparedWrite] {
        guard writes.count <= CommitLimits.maxWrites else {
            throw APIError.badRequest("a commit has at most \(CommitLimits.maxWrites) writes")
        }
        return try writes.map(PreparedWrite.init)
    }

    /// The writes of one commit, prepared, for an engine's `commit(_:completion:)`; `nil` after answering
    /// `completion` when there is nothing to submit (an empty commit succeeds, an invalid one fails as `commit`
    /// throws).
    package static func commit(
        _ writes: [Write], orAnswer completion: (Result<[WriteResult], any Error>) -> Void
    ) -> [PreparedWrite]? {
        do {
            let prepared = try commit(writes)
            if prepared.isEmpty { completion(.success([])) }
            return prepared.isEmpty ? nil : prepared
        } catch {
            completion(.failure(error))
            return nil
        }
    }

    /// A create whose only precondition is the one `create` implies: the database's unique key on the document
    /// path can decide `ALREADY_EXISTS`, without reading the document first.
    package var isBlindCreate: Bool {
        guard case .create = write.operation, outcome != nil else { return false }
        return write.precondition == nil || write.precondition == .exists(false)
    }
}
