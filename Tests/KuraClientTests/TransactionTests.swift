import Foundation
import KuraClient
import Testing

/// `runTransaction` against a real server: optimistic retries and their limit.
@Suite struct TransactionTests {
    @Test func concurrentIncrementsEndAtExactlyN() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let counter = kura.document("users/\(uid)/counters/c")
            try await counter.setData(["n": 0])
            let n = 8
            // Separate clients, as separate devices would be; each transaction reads, then writes n + 1.
            let results = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<n {
                    group.addTask {
                        try await kura.runTransaction(maxAttempts: 20) { tx in
                            let snapshot = try await tx.getDocument(counter)
                            let next = (snapshot["n"]?.intValue ?? 0) + 1
                            try tx.updateData(["n": .init(next)], forDocument: counter)
                            return next
                        }
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(try await counter.getDocument()["n"] == .integer(Int64(n)))
            // Every transaction saw a distinct value: none overwrote another's increment.
            #expect(results.sorted() == Array(1...n))
        }
    }

    @Test func exhaustedRetriesThrowFailedPrecondition() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let document = kura.document("users/\(uid)/counters/c")
            try await document.setData(["n": 0])
            let attempts = Recorder<Int>()
            let error = await #expect(throws: KuraError.self) {
                try await kura.runTransaction(maxAttempts: 3) { tx in
                    let snapshot = try await tx.getDocument(document)
                    await attempts.append(1)
                    // Someone else writes between our read and our commit, every time.
                    try await document.updateData(["n": FieldValue.increment(100)])
                    try tx.updateData(["n": .init((snapshot["n"]?.intValue ?? 0) + 1)], forDocument: document)
                }
            }
            #expect(error?.code == .failedPrecondition)
            #expect(await attempts.values.count == 3)
            #expect(try await document.getDocument()["n"] == 300)
        }
    }

    @Test func createsAndDeletesInTransactions() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let a = kura.document("users/\(uid)/things/a")
            let b = kura.document("users/\(uid)/things/b")
            let existed = try await kura.runTransaction { tx in
                let snapshot = try await tx.getDocument(a)
                try tx.setData(["made": true], forDocument: a)
                try tx.setData(["also": 1], forDocument: b)
                return snapshot.exists
            }
            #expect(existed == false)
            #expect(try await a.getDocument()["made"] == true)
            let title = try await kura.runTransaction { tx -> String in
                _ = try await tx.getDocument(a)
                try tx.deleteDocument(a)
                return "done"
            }
            #expect(title == "done")
            #expect(try await a.getDocument().exists == false)
            // Reads must come first.
            let misuse = await #expect(throws: KuraError.self) {
                try await kura.runTransaction { tx in
                    try tx.deleteDocument(b)
                    _ = try await tx.getDocument(a)
                }
            }
            #expect(misuse?.code == .invalidArgument)
        }
    }
}
