import KuraCore
import KuraModel
import KuraRules
import KuraStore

/// Writes under the security rules (docs/rules.md, "Writes").
///
/// Each write is checked against the documents as read from the store, in order (a second write to the same
/// document sees the first one's result): a missing document is `create`, an existing one `update`, a delete
/// `delete`; `request.resource` is the document as the write (merge, field paths, transforms) would leave it.
/// One denied write refuses the whole commit. The store is not locked in between: instead each document's first
/// write gets a precondition pinning the state the rules saw (`version` if it existed, `exists: false` if not), so
/// the commit fails if anything changed since, and `DurableCommit` checks again from a fresh read.
extension DataAccess {
    /// `writes` checked for `caller`, with pinning preconditions added. With `readsExisting` false the documents
    /// are known to be new (automatic IDs): nothing is read and nothing pinned. Throws 403 for a denied write and,
    /// once every write is allowed, the error the store would answer for the state read (409, 404, 412).
    func authorize(_ writes: [Write], caller: Caller, readsExisting: Bool, onLoop: Bool) throws -> DurableCommit.Plan {
        if case .admin = caller { return DurableCommit.Plan(writes: writes) }
        let rules = self.rules.current.ruleSet
        let time = WallClock.nowMicros()
        var observed: [DocumentPath: Document?] = [:]
        var state: [DocumentPath: Document?] = [:]
        var failure: (any Error)?
        for write in writes {
            let existing: Document?
            if let current = state[write.path] {
                existing = current
            } else {
                existing = readsExisting ? try store.get(write.path) : nil
                observed[write.path] = .some(existing)
            }
            let after = try Self.preview(write, existing: existing, time: time)
            let method: RuleMethod
            if case .delete = write.operation { method = .delete } else { method = existing == nil ? .create : .update }
            try authorize(
                caller, method, path: write.path.segments,
                resource: existing.map { Self.ruleDocument($0.path, $0.fields) },
                requestResource: after.map { Self.ruleDocument(write.path, $0) }, time: time, rules: rules,
                onLoop: onLoop)
            if failure == nil {
                do { _ = try write.applied(to: existing, at: time) } catch { failure = error }
            }
            state[write.path] = .some(
                after.map { fields in
                    Document(
                        path: write.path, fields: fields, createTime: existing?.createTime ?? time, updateTime: time,
                        version: (existing?.version ?? 0) + 1)
                })
        }
        // Only now: a caller who may not write a document learns nothing about it from a 409 or 412.
        if let failure { throw failure }
        guard readsExisting else { return DurableCommit.Plan(writes: writes) }
        var pinned = writes
        var added = false
        var seen: Set<DocumentPath> = []
        for index in pinned.indices where seen.insert(pinned[index].path).inserted {
            // A client's version precondition pins exactly what was read already (it held, or `failure` was thrown).
            if case .version = pinned[index].precondition { continue }
            let pin: Precondition = (observed[pinned[index].path] ?? nil).map { .version($0.version) } ?? .exists(false)
            if pinned[index].precondition != pin {
                pinned[index].precondition = pin
                added = true
            }
        }
        return DurableCommit.Plan(writes: pinned, retryOnFailedPrecondition: added)
    }

    /// The fields `write` leaves on `existing` as the rules see them (`nil` for a delete), computed leniently: a
    /// write that will fail (a create of an existing document, an update of a missing one, a precondition) is
    /// still judged by what it asks for, so that the rules decide before the store's error is revealed.
    static func preview(_ write: Write, existing: Document?, time: Int64) throws -> JSONObject? {
        var lenient = write
        lenient.precondition = nil
        var base = existing
        switch write.operation {
        case .delete:
            return nil
        case .create(let fields):
            lenient.operation = .set(fields, merge: false)
        case .update:
            if base == nil {
                base = Document(path: write.path, fields: JSONObject(), createTime: time, updateTime: time, version: 0)
            }
        case .set:
            break
        }
        return try lenient.applied(to: base, at: time)
    }
}
