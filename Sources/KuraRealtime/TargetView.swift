import KuraModel
import KuraStore

/// One change a listener is told about, Firestore's `DocumentChange`: indexes refer to the listener's documents
/// just before (`oldIndex`) and just after (`newIndex`) this change, so changes apply one after the other.
public struct ListenChange: Sendable, Equatable {
    /// What happened to the document within the listener's results.
    public enum Kind: String, Sendable {
        /// It entered the results (created, or changed so that it matches).
        case added
        /// It stayed in the results and changed (its position may have moved).
        case modified
        /// It left the results (deleted, changed so that it no longer matches, pushed out of a limit window, or
        /// no longer readable); `document` is the last version the listener had.
        case removed
    }

    public var kind: Kind
    public var document: Document
    /// Position before the change; -1 for `added`.
    public var oldIndex: Int
    /// Position after the change; -1 for `removed`.
    public var newIndex: Int

    public init(kind: Kind, document: Document, oldIndex: Int, newIndex: Int) {
        self.kind = kind
        self.document = document
        self.oldIndex = oldIndex
        self.newIndex = newIndex
    }
}

/// The documents one listener's client holds, in the target's order, and how a change-log entry moves them.
/// A plain value: it can be tested without a store, and belongs to one thread at a time.
struct TargetView {
    let target: ListenTarget
    private(set) var documents: [Document]
    private var byPath: [DocumentPath: Document]
    /// Whether `documents` holds every document of the target; false when a limit cut the results off.
    /// Invariant: a window holding fewer than `limit` documents is complete.
    private(set) var complete: Bool

    /// A view holding `documents` (in the target's order).
    init(target: ListenTarget, documents: [Document], complete: Bool) {
        self.target = target
        self.documents = documents
        self.complete = complete || target.limit.map { documents.count < $0 } ?? true
        byPath = Dictionary(documents.map { ($0.path, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// The next documents after a position, as of the change being applied: `after` is the last document kept
    /// (`nil`: from the start), `count` how many are wanted. Answers them in order, and whether none is left
    /// beyond them.
    typealias Refill = (_ after: Document?, _ count: Int) throws -> (documents: [Document], complete: Bool)

    /// Applies a write of the document at `path` (`after` is `nil` for a delete) and returns what the listener
    /// is told, in order. `includes` says whether a document belongs to the target (matches and may be read);
    /// `refill` is asked only for limit windows that a document left.
    mutating func apply(
        path: DocumentPath, after: Document?, includes: (Document) -> Bool, refill: Refill
    ) throws -> [ListenChange] {
        var out: [ListenChange] = []
        let fits = after.map(includes) ?? false
        if let old = byPath[path] {
            let oldIndex = index(of: old)
            remove(at: oldIndex)
            if fits, let after {
                let newIndex = insertionIndex(after)
                if let limit = target.limit, !complete, newIndex == documents.count {
                    // It now sorts after everything else in a cut-off window: a document beyond the window may
                    // come first, so ask what follows the others.
                    let next = try refill(documents.last, limit - documents.count)
                    if next.documents.contains(where: { $0.path == path }) {
                        out.append(insert(after, oldIndex: oldIndex))
                        for document in next.documents where document.path != path && documents.count < limit {
                            out.append(insert(document))
                        }
                    } else {
                        out.append(ListenChange(kind: .removed, document: old, oldIndex: oldIndex, newIndex: -1))
                        for document in next.documents where documents.count < limit { out.append(insert(document)) }
                    }
                    complete = next.complete
                } else {
                    out.append(insert(after, oldIndex: oldIndex))
                }
            } else {
                out.append(ListenChange(kind: .removed, document: old, oldIndex: oldIndex, newIndex: -1))
                if let limit = target.limit, !complete {
                    let next = try refill(documents.last, limit - documents.count)
                    for document in next.documents where documents.count < limit && byPath[document.path] == nil {
                        out.append(insert(document))
                    }
                    complete = next.complete
                }
            }
        } else if fits, let after {
            if let limit = target.limit, documents.count >= limit {
                // A full window: the newcomer enters only ahead of the last document, which then leaves.
                complete = false
                if let last = documents.last, target.compare(after, last) < 0 {
                    let lastIndex = documents.count - 1
                    remove(at: lastIndex)
                    out.append(ListenChange(kind: .removed, document: last, oldIndex: lastIndex, newIndex: -1))
                    out.append(insert(after))
                }
            } else {
                out.append(insert(after))
            }
        }
        return out
    }

    /// Whether the view holds a document at `path`.
    func contains(_ path: DocumentPath) -> Bool { byPath[path] != nil }

    /// Whether `other` holds the same documents (equal values, in the same order) and is as complete: then a
    /// change applies to both alike, for the same target and the same `includes` and `refill`.
    func hasSameContents(as other: TargetView) -> Bool {
        complete == other.complete && documents == other.documents
    }

    // MARK: Ordered storage

    /// Inserts `document`; the change is `added`, or `modified` when it was just removed from `oldIndex`.
    private mutating func insert(_ document: Document, oldIndex: Int? = nil) -> ListenChange {
        let index = insertionIndex(document)
        documents.insert(document, at: index)
        byPath[document.path] = document
        if let oldIndex {
            return ListenChange(kind: .modified, document: document, oldIndex: oldIndex, newIndex: index)
        }
        return ListenChange(kind: .added, document: document, oldIndex: -1, newIndex: index)
    }

    private mutating func remove(at index: Int) {
        let document = documents.remove(at: index)
        byPath[document.path] = nil
    }

    /// The first position whose document does not sort before `document`.
    private func insertionIndex(_ document: Document) -> Int {
        var low = 0
        var high = documents.count
        while low < high {
            let middle = (low + high) / 2
            if target.compare(documents[middle], document) < 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The position of a document the view holds (the order is total, so binary search finds it).
    private func index(of document: Document) -> Int {
        let index = insertionIndex(document)
        if index < documents.count && documents[index].path == document.path { return index }
        // Only a document target (no order) gets here with more than one candidate; it holds one document.
        return documents.firstIndex { $0.path == document.path } ?? 0
    }
}
