import KuraCore
import KuraModel

/// What a condition reads that can differ from one document of a collection to the next, collected while it is
/// compiled (static analysis, no evaluation).
final class DependencyRecorder {
    /// `resource`, `request.path`, or the whole `request` map (which holds the path).
    var readsDocument = false
    /// Path-variable slots read.
    var slots: Set<Int> = []
    /// `request.time`, `get()` or `exists()`: what can change between two requests of the same caller on the
    /// same path.
    var readsVolatile = false
    /// User functions called: what they read counts too.
    var callees: [CompiledFunction] = []
}

/// What an `allow` condition reads, through the functions it calls included.
struct RuleDependencies: Sendable {
    /// `resource`, `request.path` or the whole `request`.
    var readsDocument = false
    /// Path-variable slots read.
    var slots: Set<Int> = []
    /// `request.time`, `get()` or `exists()`.
    var readsVolatile = false
}

extension Compiler {
    /// `match` with each allow's dependencies resolved through the call graph (which has no cycles by now).
    /// `next` walks `allowRecorders` in the order `compile(_:parent:)` filled it: a block's allows, then its children.
    func resolveDependencies(_ match: CompiledMatch, next: inout Int) -> CompiledMatch {
        let match = match
        for index in match.allows.indices {
            let recorder = allowRecorders[next]
            next += 1
            var dependencies = RuleDependencies(
                readsDocument: recorder.readsDocument, slots: recorder.slots, readsVolatile: recorder.readsVolatile)
            var seen: Set<ObjectIdentifier> = []
            var pending = recorder.callees
            while let function = pending.popLast() {
                guard seen.insert(ObjectIdentifier(function)).inserted else { continue }
                dependencies.readsDocument = dependencies.readsDocument || function.dependencies.readsDocument
                dependencies.slots.formUnion(function.dependencies.slots)
                dependencies.readsVolatile = dependencies.readsVolatile || function.dependencies.readsVolatile
                pending += function.dependencies.callees
            }
            match.allows[index].dependencies = dependencies
        }
        if case .rest(let slot?) = match.segments.last,
            !match.allows.contains(where: { $0.dependencies.slots.contains(slot) })
        {
            match.segments[match.segments.count - 1] = .rest(slot: nil)
        }
        match.children = match.children.map { resolveDependencies($0, next: &next) }
        return match
    }
}

extension RuleSet {
    /// Whether the decision for `method` on the document at `path` is a function of the caller and the path
    /// alone: no `allow` for the method that matches `path` reads a document (`resource`, `request.resource`,
    /// `request.path` or the whole `request`), `request.time`, or `get()`/`exists()`, through the functions it
    /// calls included. Such a decision can be remembered per caller and path until the rules change.
    /// Conservative: `false` may be a decision that would not change, never the reverse.
    public func decisionDependsOnlyOnCallerAndPath(method: RuleMethod, path: [String]) -> Bool {
        let bit = method.bit
        let known: [String?] = path
        return !matches.contains { match in
            someMatchingAllow(match, path: known[...], bit: bit, varying: []) { allow, _ in
                allow.dependencies.readsDocument || allow.dependencies.readsVolatile
            }
        }
    }

    /// Whether the `list` decision for a document directly in the collection `collection` (segments, e.g.
    /// `["users", "alice", "notes"]`) can differ between documents: `true` when some `allow list` that may match
    /// reads `resource`, `request.path`, or a path variable bound to the document ID, or when a `match` pattern
    /// names a literal document ID there. When it is `false`, one evaluation (at any document path of the
    /// collection, with any `resource`) decides for every document of it. Conservative: `true` may be a
    /// decision that does not actually vary, never the reverse.
    public func listDependsOnDocument(inCollection collection: [String]) -> Bool {
        let path: [String?] = collection.map { $0 } + [nil]
        let bit = RuleMethod.list.bit
        return matches.contains { match in
            someMatchingAllow(match, path: path[...], bit: bit, varying: []) { allow, varying in
                allow.dependencies.readsDocument || !allow.dependencies.slots.isDisjoint(with: varying)
            }
        }
    }

    /// Walks `match` like `visit` does, with `nil` standing for a segment not known yet: whether some `allow` for
    /// `bit` that matches `path` passes `test` (given the slots bound to unknown segments), or a literal pattern
    /// segment meets an unknown one (it matches some paths and not others).
    private func someMatchingAllow(
        _ match: CompiledMatch, path: ArraySlice<String?>, bit: UInt8, varying: Set<Int>,
        _ test: (CompiledAllow, Set<Int>) -> Bool
    ) -> Bool {
        var rest = path
        var varying = varying
        for segment in match.segments {
            switch segment {
            case .literal(let text):
                guard let first = rest.first else { return false }
                guard let known = first else { return true }  // matches some document IDs and not others
                guard known.bytesEqual(text) else { return false }
                rest = rest.dropFirst()
            case .variable(let slot):
                guard let first = rest.first else { return false }
                if first == nil { varying.insert(slot) }
                rest = rest.dropFirst()
            case .rest(let slot):
                if let slot, rest.contains(where: { $0 == nil }) { varying.insert(slot) }
                rest = rest[rest.endIndex...]
            }
        }
        if rest.isEmpty { return match.allows.contains { $0.methods & bit != 0 && test($0, varying) } }
        return match.children.contains { someMatchingAllow($0, path: rest, bit: bit, varying: varying, test) }
    }
}
