import KuraCore
import KuraModel
import Synchronization
import Testing

@testable import KuraRules

@Suite struct LookupTests {
    @Test func getAndExistsUseTheCallback() throws {
        let seen = Mutex<[[String]]>([])
        let lookup: RuleContext.Lookup = { path in
            seen.withLock { $0.append(path) }
            return path == ["roles", "alice"] ? ["role": "editor"] : nil
        }
        #expect(try decide("exists(/roles/$(request.auth.uid))", lookup: lookup).isAllowed)
        #expect(try decide("get(/roles/$(request.auth.uid)).data.role == 'editor'", lookup: lookup).isAllowed)
        #expect(try decide("get(/roles/alice).id == 'alice'", lookup: lookup).isAllowed)
        #expect(try decide("!exists(/roles/bob)", lookup: lookup).isAllowed)
        #expect(try !decide("get(/roles/bob).data.role == 'x'", lookup: lookup).isAllowed)
        #expect(try decide("exists(/databases/$(id)/documents/roles/alice)", lookup: lookup).isAllowed)
        #expect(seen.withLock { $0.contains(["roles", "alice"]) })
    }

    @Test func atMostTenDistinctLookups() throws {
        let ten = (0..<10).map { "!exists(/d/\($0))" }.joined(separator: " && ")
        #expect(try decide(ten).isAllowed)
        let eleven = (0..<11).map { "!exists(/d/\($0))" }.joined(separator: " && ")
        let decision = try decide(eleven)
        #expect(!decision.isAllowed)
        if case .deny(let reason) = decision { #expect(reason.contains("more than 10 document lookups")) }
        // Repeating one path is served from the per-evaluation cache.
        let repeated = Array(repeating: "!exists(/d/same)", count: 20).joined(separator: " && ")
        #expect(try decide(repeated).isAllowed)
    }
}
