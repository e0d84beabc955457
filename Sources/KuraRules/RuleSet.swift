import KuraCore
import KuraModel

/// A compiled rules file. Compile once at load (`compile`), then `evaluate` on every request; it is immutable and
/// safe to share between threads.
public struct RuleSet: Sendable {
    /// Most distinct documents `get()`/`exists()` may read in one evaluation; one more is an error that denies.
    public static let maxLookups = Evaluation.maxLookups

    let matches: [CompiledMatch]
    let slotCount: Int

    /// Parses and checks `source`; throws a `RulesError` (`file:line:col: message`) for syntax errors, unknown
    /// identifiers or functions, wrong argument counts, recursion and statically detectable type errors.
    public static func compile(source: String, fileName: String) throws(RulesError) -> RuleSet {
        do {
            var parser = try Parser(source: source)
            let file = try parser.parseFile()
            var compiler = Compiler()
            let matches = try compiler.compile(file)
            return RuleSet(matches: matches, slotCount: compiler.slotCount)
        } catch {
            throw RulesError(
                fileName: fileName, line: error.position.line, column: error.position.column, message: error.message)
        }
    }

    /// Decides whether `method` on the document at `path` (segments, e.g. `["users", "alice"]`) is allowed.
    /// Default deny: some matching `allow` for the method must evaluate to `true`. An error while evaluating a
    /// condition (type mismatch, missing field, too many lookups) makes that condition false.
    public func evaluate(method: RuleMethod, path: [String], context: consuming RuleContext) -> RuleDecision {
        decide(Evaluation(context: context, method: method, path: path, slotCount: slotCount))
    }

    /// `evaluate` without reading any document, for threads that must not block: `nil` when some condition
    /// wanted `get()` or `exists()` (evaluate again where lookups can run). `context.lookup` is not called.
    public func evaluateInMemory(method: RuleMethod, path: [String], context: consuming RuleContext) -> RuleDecision? {
        let evaluation = Evaluation(context: context, method: method, path: path, slotCount: slotCount)
        evaluation.lookupsUnavailable = true
        let decision = decide(evaluation)
        return evaluation.neededLookup ? nil : decision
    }

    private func decide(_ evaluation: Evaluation) -> RuleDecision {
        let method = evaluation.method
        let path = evaluation.path
        var outcome = Outcome(bit: method.bit)
        for match in matches {
            if visit(match, path: path[...], evaluation: evaluation, outcome: &outcome) { return .allow }
        }
        if outcome.failures.isEmpty {
            return .deny(reason: "no 'allow \(method.rawValue)' rule matches this path")
        }
        return .deny(reason: outcome.failures.joined(separator: "; "))
    }

    private struct Outcome {
        var bit: UInt8
        var failures: [String] = []
    }

    /// Matches `match` against the front of `path`; returns `true` as soon as an allow grants.
    private func visit(
        _ match: CompiledMatch, path: ArraySlice<String>, evaluation: Evaluation, outcome: inout Outcome
    ) -> Bool {
        var rest = path
        if let slot = match.databaseRootSlot { evaluation.slots[slot] = .string("(default)") }
        for segment in match.segments {
            switch segment {
            case .literal(let text):
                guard let first = rest.first, first.bytesEqual(text) else { return false }
                rest = rest.dropFirst()
            case .variable(let slot):
                guard let first = rest.first else { return false }
                evaluation.slots[slot] = .string(first)
                rest = rest.dropFirst()
            case .rest(let slot):
                if let slot { evaluation.slots[slot] = .string(rest.joined(separator: "/")) }
                rest = rest[rest.endIndex...]
            }
        }
        if rest.isEmpty {
            for allow in match.allows where allow.methods & outcome.bit != 0 {
                evaluation.stack.removeAll(keepingCapacity: true)
                evaluation.base = 0
                evaluation.depth = 0
                // The position is formatted only for a denial: this loop is on every request's path.
                do {
                    if case .bool(true) = try allow.condition(evaluation) { return true }
                    if outcome.failures.count < 8 {
                        outcome.failures.append("allow at \(allow.position.line):\(allow.position.column) was false")
                    }
                } catch {
                    if outcome.failures.count < 8 {
                        outcome.failures.append(
                            "allow at \(allow.position.line):\(allow.position.column) failed: \(error.message)")
                    }
                }
            }
            return false
        }
        for child in match.children where visit(child, path: rest, evaluation: evaluation, outcome: &outcome) {
            return true
        }
        return false
    }
}
