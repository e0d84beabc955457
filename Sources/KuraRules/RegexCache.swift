import Foundation

/// A regular expression compiled once, matched against whole strings (as Firestore's `matches` does).
final class CompiledRegex: @unchecked Sendable {
    // NSRegularExpression is immutable and documented as thread-safe.
    private let expression: NSRegularExpression

    /// Compiles `pattern` anchored at both ends; `nil` if it is not a valid pattern.
    init?(_ pattern: String) {
        guard pattern.utf16.count <= 1_000,
            let expression = try? NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z", options: [])
        else { return nil }
        self.expression = expression
    }

    func matchesWhole(_ string: String) -> Bool {
        let range = NSRange(location: 0, length: string.utf16.count)
        return expression.firstMatch(in: string, options: [], range: range) != nil
    }
}

/// Regexes whose pattern is only known at evaluation time, compiled once and kept (bounded).
///
/// Invalid patterns are cached too: on Linux, Foundation leaks about 1 KB each time `NSRegularExpression` fails
/// to compile, so a pattern read from document data must not be recompiled on every request.
final class RegexCache: @unchecked Sendable {
    static let shared = RegexCache()
    private static let capacity = 256
    private let lock = NSLock()
    private var entries: [String: CompiledRegex?] = [:]

    func regex(_ pattern: String) throws(RuleEvaluationError) -> CompiledRegex {
        lock.lock()
        let cached = entries[pattern]
        lock.unlock()
        let compiled: CompiledRegex?
        if let cached {
            compiled = cached
        } else {
            compiled = CompiledRegex(pattern)
            lock.lock()
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[pattern] = .some(compiled)
            lock.unlock()
        }
        guard let compiled else { throw RuleEvaluationError("invalid regular expression") }
        return compiled
    }
}
