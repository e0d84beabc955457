import Foundation
import KuraCore
import Testing

@testable import KuraServer

/// `query.maxConcurrentPerCaller`: one caller (uid, or client address when anonymous) runs at most that many
/// queries at once; past it, 429 `RESOURCE_EXHAUSTED` with `Retry-After`, while other callers go on.
@Suite struct QueryConcurrencyTests {
    @Test func aCallerPastItsShareIsRefusedOthersAreNot() throws {
        let gate = QueryConcurrency(perCaller: 2, workers: 64)
        let me = QueryConcurrency.key(.anonymous, address: "192.0.2.1")
        let other = QueryConcurrency.key(.anonymous, address: "192.0.2.2")
        try gate.run(me) {
            try gate.run(me) {
                #expect(gate.held(me!) == 2)
                do {
                    try gate.run(me) { Issue.record("a third query of the same caller ran") }
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
}
