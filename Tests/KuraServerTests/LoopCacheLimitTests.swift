import Testing

@testable import KuraAuth
@testable import KuraServer

/// The per-loop caches keep at most their configured number of entries (`auth.callersPerLoop`,
/// `rules.rememberedReadsPerLoop`) and start over when a new one would pass it.
@Suite struct LoopCacheLimitTests {
    static func claims(_ uid: String) -> AuthClaims {
        AuthClaims(
            uid: uid, email: "\(uid)@example.com", emailVerified: true, issuedAt: 0, expiresAt: 3600, authTime: 0,
            sessionID: "s-\(uid)", customClaims: [:])
    }

    @Test func decisionMemoStartsOverPastItsCapacity() {
        var memo = LoopDecisionMemo(capacity: 2)
        let alice = Self.claims("alice")
        for path in ["a", "b"] { memo.rememberGet(alice, path: path, rulesVersion: 1, epoch: 0) }
        #expect(memo.allowsGet(alice, path: "a", rulesVersion: 1, epoch: 0))
        #expect(memo.allowsGet(alice, path: "b", rulesVersion: 1, epoch: 0))
        // Remembering "a" again replaces it and keeps the count.
        memo.rememberGet(alice, path: "a", rulesVersion: 1, epoch: 0)
        #expect(memo.allowsGet(alice, path: "b", rulesVersion: 1, epoch: 0))
        memo.rememberGet(alice, path: "c", rulesVersion: 1, epoch: 0)
        #expect(memo.allowsGet(alice, path: "c", rulesVersion: 1, epoch: 0))
        #expect(!memo.allowsGet(alice, path: "a", rulesVersion: 1, epoch: 0))
        #expect(!memo.allowsGet(alice, path: "b", rulesVersion: 1, epoch: 0))
    }

    @Test func callerCacheStartsOverPastItsCapacity() {
        var cache = LoopCallerCache(capacity: 2)
        // Headers differ in their last 32 bytes, which key the cache.
        let headers = (0..<3).map { "Bearer token-\($0)-" + String(repeating: "\($0)", count: 40) }
        for (index, header) in headers.prefix(2).enumerated() {
            cache.insert(header: header, verification: Self.verification("u\(index)"))
        }
        #expect(cache.entry(header: headers[0]) != nil)
        #expect(cache.entry(header: headers[1]) != nil)
        cache.insert(header: headers[2], verification: Self.verification("u2"))
        #expect(cache.entry(header: headers[2]) != nil)
        #expect(cache.entry(header: headers[0]) == nil)
        #expect(cache.entry(header: headers[1]) == nil)
    }

    static func verification(_ uid: String) -> CachedVerification {
        CachedVerification(claims: claims(uid), validity: .init(expiresAt: 3600, recheckAt: 3600), epoch: 0)
    }
}
