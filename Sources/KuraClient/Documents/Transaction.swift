import Foundation
internal import KuraModel

/// Reads and writes that succeed together: the documents read keep the versions they were read at, and the writes
/// commit only if the documents they touch have not changed since (optimistic concurrency; see
/// `Kura.runTransaction`). Read before you write.
public final class Transaction: Sendable {
    let kura: Kura
    private let state = Locked(State())

    private struct State {
        /// Path (by bytes) → version read (`nil`: the document did not exist).
        var reads: [ByteKey: Int64?] = [:]
        var writes: [Write] = []
    }

    init(kura: Kura) { self.kura = kura }

    /// Reads `document` from the server and remembers its version; the commit fails (and the transaction runs
    /// again) if a document this transaction writes changed after it was read.
    public func getDocument(_ document: DocumentReference) async throws -> DocumentSnapshot {
        try ResourcePath.validate(document.segments, document: true)
        guard state.current.writes.isEmpty else {
            throw KuraError.invalidArgument("a transaction must read all its documents before it writes")
        }
        let remote = try await document.fetch()
        try state.withLock { state in
            if let known = state.reads[ByteKey(document.path)], known != remote?.version {
                // Two reads of one document disagree: it changed under us, so this attempt cannot commit.
                throw KuraError(.failedPrecondition, "\(document.path) changed during the transaction")
            }
            state.reads[ByteKey(document.path)] = .some(remote?.version)
        }
        return DocumentSnapshot(reference: document, document: remote)
    }

    /// Reads and decodes `document`; throws `.notFound` if it does not exist.
    public func getDocument<T: Decodable>(_ document: DocumentReference, as type: T.Type) async throws -> T {
        try await getDocument(document).data(as: type)
    }

    @discardableResult
    public func setData(_ data: DocumentData, forDocument document: DocumentReference, merge: Bool = false) throws
        -> Transaction
    {
        try add(Write.set(document.path, data, merge: merge))
    }

    @discardableResult
    public func setData<T: Encodable>(from value: T, forDocument document: DocumentReference, merge: Bool = false)
        throws -> Transaction
    {
        try add(Write.set(document.path, try DocumentCoding.encode(value), merge: merge))
    }

    @discardableResult
    public func updateData(_ fields: DocumentData, forDocument document: DocumentReference) throws -> Transaction {
        try add(Write.update(document.path, fields))
    }

    @discardableResult
    public func deleteDocument(_ document: DocumentReference) throws -> Transaction {
        try add(Write.delete(document.path))
    }

    private func add(_ write: Write) throws -> Transaction {
        try ResourcePath.validate(ResourcePath.split(write.path), document: true)
        state.withLock { $0.writes.append(write) }
        return self
    }

    /// The writes, the first one for each document read carrying the version it was read at.
    func preconditionedWrites() -> [Write] {
        state.withLock { state in
            var pinned: Set<ByteKey> = []
            return state.writes.map { write in
                var write = write
                if let read = state.reads[ByteKey(write.path)], pinned.insert(ByteKey(write.path)).inserted {
                    write.precondition = read.map(Write.Precondition.version) ?? .exists(false)
                }
                return write
            }
        }
    }
}

extension Kura {
    /// Runs `body` as an optimistic transaction and returns what it returns:
    /// ```swift
    /// let plays = try await kura.runTransaction { tx in
    ///     let quiz = try await tx.getDocument(ref)
    ///     let plays = (quiz["plays"]?.intValue ?? 0) + 1
    ///     try tx.updateData(["plays": .init(plays)], forDocument: ref)
    ///     return plays
    /// }
    /// ```
    /// The commit carries the version of every document that was read and is written, and the server refuses it
    /// (`.failedPrecondition`, or `.aborted` when its documents kept changing) if one changed meanwhile; then
    /// `body` runs again, after a short random pause, up to `maxAttempts` times in all. `body` may therefore run more than once: keep side effects out of it.
    ///
    /// Documents that are only read (not written) are not re-checked at commit: the server has no read-only
    /// precondition yet. Write a document (e.g. a counter) to make the transaction depend on it.
    /// Transactions always talk to the server; they fail with `.unavailable` offline.
    public func runTransaction<T: Sendable>(
        maxAttempts: Int = 5, _ body: @Sendable (Transaction) async throws -> T
    ) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            let transaction = Transaction(kura: self)
            do {
                let value = try await body(transaction)
                let writes = transaction.preconditionedWrites()
                if !writes.isEmpty { _ = try await sendCommit(writes) }
                return value
            } catch let error as KuraError
                where [.failedPrecondition, .aborted].contains(error.code) && attempt < maxAttempts
            {
                // Contention: back off a random while (growing with each attempt) so the writers spread out.
                let ceiling = 10_000_000 * UInt64(1 << min(attempt, 6))
                try await Task.sleep(nanoseconds: UInt64.random(in: ceiling / 4...ceiling))
            }
        }
    }
}
