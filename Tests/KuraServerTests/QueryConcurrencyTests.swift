import Foundation
import KuraCore
import KuraServerTestSupport
import KuraTestSupport
import Testing

@testable import KuraServer

/// `query.maxConcurrentPerCaller`: one caller (uid, or client address when anonymous) runs at most that many
/// queries at once; over HTTP the rest wait in the caller's own line (holding no thread); a handler called off the
/// loop is refused past it with 429 `RESOURCE_EXHAUSTED` and `Retry-After`; other callers go on.
@Suite struct QueryConcurrencyTests {
    @Test func aCallerPastItsShareIsRefusedOthersAreNot() throws {
        let gate = QueryConcurrency(perCaller: 2, workers: 64)
        let me = QueryConcurrency.key(.anonymous, address: "192.0.2.1")
        let other = QueryConcurrency.key(.anonymous, address: "192.0.2.2")
        try gate.run(me) {
            try gate.run(me) {
                #expect(gate.held(me!) == 2)
                do {
                    _ = try gate.run(me) { Issue.record("a third query of the same caller ran") }
                } catch let error as APIError {
                    #expect(error.code == .resourceExhausted && error.status == 429)
                    #expect(error.headers.contains { $0.0 == "Retry-After" })
                    #expect(error.message.contains("query.maxConcurrentPerCaller"))
                }
                try gate.run(other) { #expect(gate.held(other!) == 1) }
            }
        }
        #expect(gate.held(me!) == 0)
        // A slot is given back when the query fails too.
        _ = try? gate.run(me) { throw APIError.badRequest("x") }
        #expect(gate.held(me!) == 0)
        #expect(QueryConcurrency.key(.admin, address: "192.0.2.1") == nil)
    }

    @Test func theDefaultIsAQuarterOfThePoolAtLeastTwo() {
        #expect(QueryConcurrency(perCaller: 0, workers: 4).perCaller == 2)
        #expect(QueryConcurrency(perCaller: 0, workers: 32).perCaller == 8)
        #expect(QueryConcurrency(perCaller: 5, workers: 32).perCaller == 5)
    }

    @Test func overHTTPACallersQueriesPastItsShareWaitTheirTurn() throws {
        // One slot per caller, twelve queries of one anonymous caller at once: every one is answered, none is
        // refused (the places app sends dozens of reads at once), and the slot is given back.
        let rules = """
            rules_version = '1';
            match /open/{id} { allow read: if true; }
            """
        try withTestKura(rules: rules, configure: { try $0.set("query.maxConcurrentPerCaller", "1") }) { server in
            try server.commit((0..<20).map { ["op": "set", "path": "open/d\($0)", "data": ["n": $0]] })
            let statuses = Shared<[Int]>([])
            onThreads(12) { _ in
                let status =
                    (try? server.request(
                        "POST", "/api/query", json: ["collection": "open", "orderBy": [["field": "n"]]], auth: .none
                    ).status) ?? -1
                statuses.withLock { $0.append(status) }
            }
            #expect(statuses.withLock { $0 } == Array(repeating: 200, count: 12))
        }
    }
}
