import CRE2
import Foundation
import Synchronization

/// A regular expression compiled once, matched against whole strings (as Firestore's `matches` does).
///
/// Patterns run on RE2, as Firebase's rules do: RE2 syntax (no backreferences or lookaround), and matching time
/// linear in the input, whatever the pattern. The input is user data, so a backtracking engine would let a rule like
/// `s.matches('(a+)+$')` burn seconds of a loop per request.
final class CompiledRegex: @unchecked Sendable {
    // `@unchecked`: the RE2 object is immutable once compiled and RE2 allows matching from several threads at once.
    /// The engine behind `matches()`, for tests and diagnostics.
    static let engine = "RE2"
    /// Longest pattern accepted, in UTF-8 bytes (RE2's compiled program grows with it).
    static let maxPatternBytes = 1_000

    // An RE2 object is immutable once compiled and may be matched from several threads at once.
    private let regex: OpaquePointer

    /// Compiles `pattern`; `nil` if it is not a valid RE2 pattern or is over `maxPatternBytes`.
    init?(_ pattern: String) {
        var pattern = pattern
        guard pattern.utf8.count <= Self.maxPatternBytes,
            let compiled = pattern.withUTF8({ bytes in
                bytes.withMemoryRebound(to: CChar.self) { kura_re2_compile($0.baseAddress, $0.count) }
            })
        else { return nil }
        regex = compiled
    }

    deinit { kura_re2_free(regex) }

    /// Whether the whole of `string` matches (RE2's full match: no implicit `.*` at either end).
    func matchesWhole(_ string: String) -> Bool {
        var string = string
        return string.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { kura_re2_full_match(regex, $0.baseAddress, $0.count) == 1 }
        }
    }
}

/// Regexes whose pattern is only known at evaluation time, compiled once and kept (bounded). Invalid patterns are
/// cached too, so a bad pattern read from document data is not recompiled on every request. Keyed by the pattern's
/// UTF-8 bytes, which is what RE2 compiles: `String`'s `==` would let a canonically equivalent pattern (NFC `é`
/// for NFD `é`) pick up a regex that matches other bytes.
final class RegexCache: Sendable {
    static let shared = RegexCache()
    private static let capacity = 256
    private let entries = Mutex<[[UInt8]: CompiledRegex?]>([:])

    func regex(_ pattern: String) throws(RuleEvaluationError) -> CompiledRegex {
        let key = Array(pattern.utf8)
        let compiled: CompiledRegex?
        if let cached = entries.withLock({ $0[key] }) {
            compiled = cached
        } else {
            // Compiled outside the lock: RE2 takes its time, and two threads compiling one pattern at once is
            // harmless (the second result replaces the first).
            compiled = CompiledRegex(pattern)
            entries.withLock { entries in
                if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
                entries[key] = .some(compiled)
            }
        }
        guard let compiled else { throw RuleEvaluationError("invalid regular expression") }
        return compiled
    }
}
