/// What a condition reads that can differ from one document of a collection to the next, collected while it is
/// compiled (static analysis, no evaluation).
final class DependencyRecorder {
    /// `resource`, `request.path`, or the whole `request` map (which holds the path).
    var readsDocument = false
    /// Path-variable slots read.
    var slots: Set<Int> = []
    /// User functions called: what they read counts too.
    var callees: [CompiledFunction] = []
}

/// What an `allow` condition reads, through the functions it calls included.
struct RuleDependencies: Sendable {
    /// `resource`, `request.path` or the whole `request`.
    var readsDocument = false
    /// Path-variable slots read.
    var slots: Set<Int> = []
}

extension Compiler {
    /// `match` with each allow's dependencies resolved through the call graph (which has no cycles by now).
    /// `next` walks `allowRecorders` in the order `compile(_:parent:)` filled it: a block's allows, then its children.
    func resolveDependencies(_ match: CompiledMatch, next: inout Int) -> CompiledMatch {
        var match = match
        for index in match.allows.indices {
            let recorder = allowRecorders[next]
            next += 1
            var dependencies = RuleDependencies(readsDocument: recorder.readsDocument, slots: recorder.slots)
            var seen: Set<ObjectIdentifier> = []
            var pending = recorder.callees
            while let function = pending.popLast() {
                guard seen.insert(ObjectIdentifier(function)).inserted else { continue }
                dependencies.readsDocument = dependencies.readsDocument || function.dependencies.readsDocument
                dependencies.slots.formUnion(function.dependencies.slots)
                pending += function.dependencies.callees
            }
            match.allows[index].dependencies = dependencies
        }
        match.children = match.children.map { resolveDependencies($0, next: &next) }
        return match
    }
}

extension RuleSet {
    /// Whether the `list` decision for a document directly in the collection `collection` (segments, e.g.
    /// `["users", "alice", "notes"]`) can differ between documents: `true` when some `allow list` that may match
    /// reads `resource`, `request.path`, or a path variable bound to the document ID, or when a `match` pattern
    /// names a literal document ID there. When it is `false`, one evaluation (at any document path of the
    /// collection, with any `resource`) decides for every document of it. Conservative: `true` may be a
    /// decision that does not actually vary, never the reverse.
    public func listDependsOnDocument(inCollection collection: [String]) -> Bool {
        let path: [String?] = collection.map { $0 } + [nil]
        let bit = RuleMethod.list.bit
        return matches.contains { dependsOnDocument($0, path: path[...], bit: bit, varying: []) }
    }

    /// Walks `match` like `visit` does, with `nil` standing for the unknown document ID.
    private func dependsOnDocument(
        _ match: CompiledMatch, path: ArraySlice<String?>, bit: UInt8, varying: Set<Int>
    ) -> Bool {
        var rest = path
        var varying = varying
        for segment in match.segments {
            switch segment {
            case .literal(let text):
                guard let first = rest.first else { return false }
                guard let known = first else { return true }  // matches some document IDs and not others
                guard known == text else { return false }
                rest = rest.dropFirst()
            case .variable(let slot):
                guard let first = rest.first else { return false }
                if first == nil { varying.insert(slot) }
                rest = rest.dropFirst()
            case .rest(let slot):
                if rest.contains(where: { $0 == nil }) { varying.insert(slot) }
                rest = rest[rest.endIndex...]
            }
        }
        if rest.isEmpty {
            return match.allows.contains { allow in
                allow.methods & bit != 0
                    && (allow.dependencies.readsDocument || !allow.dependencies.slots.isDisjoint(with: varying))
            }
        }
        return match.children.contains { dependsOnDocument($0, path: rest, bit: bit, varying: varying) }
    }
}
