import Foundation
import KuraCore
import KuraModel
import KuraStore
import KuraTestSupport

@testable import KuraRealtime

/// The documents of a collection as plain values, written like a store would (versions, times).
struct Model {
    var documents: [DocumentPath: Document] = [:]
    var clock: Int64 = 1_000

    /// Applies a write and returns the document before and after.
    mutating func write(_ path: DocumentPath, _ fields: JSONObject?) -> (before: Document?, after: Document?) {
        clock += 1
        let before = documents[path]
        guard let fields else {
            documents[path] = nil
            return (before, nil)
        }
        let after = Document(
            path: path, fields: fields, createTime: before?.createTime ?? clock, updateTime: clock,
            version: (before?.version ?? 0) + 1)
        documents[path] = after
        return (before, after)
    }

    /// What `target` holds now: its documents the listener may read, in order, cut at its limit.
    func expected(_ target: ListenTarget, readable: (Document) -> Bool = { _ in true }) -> [Document] {
        var matched = documents.values.filter { target.matches($0) && readable($0) }
        matched.sort { target.compare($0, $1) < 0 }
        if let limit = target.limit { matched = Array(matched.prefix(limit)) }
        return matched
    }
}

/// A client applying `changes` events by their indexes, as the docs tell clients to.
struct ClientView {
    var documents: [Document] = []
    var problems: [String] = []

    mutating func apply(_ changes: [ListenChange]) {
        for change in changes {
            switch change.kind {
            case .added:
                guard change.oldIndex == -1, change.newIndex >= 0, change.newIndex <= documents.count else {
                    problems.append("bad added \(change.document.path) \(change.oldIndex)→\(change.newIndex)")
                    continue
                }
                documents.insert(change.document, at: change.newIndex)
            case .removed, .modified:
                guard change.oldIndex >= 0, change.oldIndex < documents.count,
                    documents[change.oldIndex].path == change.document.path
                else {
                    problems.append("bad \(change.kind) \(change.document.path) at \(change.oldIndex)")
                    continue
                }
                documents.remove(at: change.oldIndex)
                if change.kind == .modified {
                    guard change.newIndex >= 0, change.newIndex <= documents.count else {
                        problems.append("bad modified target index \(change.newIndex)")
                        continue
                    }
                    documents.insert(change.document, at: change.newIndex)
                }
            }
        }
    }
}
