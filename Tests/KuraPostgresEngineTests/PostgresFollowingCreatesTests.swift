import Foundation
import KuraCore
import KuraModel
import KuraPostgres
import KuraStore
import KuraStoreTestSupport
import KuraTestSupport
import Testing

@testable import KuraPostgresEngine

/// Creates that queue while a create batch's answer is outstanding go out behind it on the same connection
/// (`PostgresWriter.followingCreates`): the server runs them right after it, in order; when the first batch fails,
/// the one behind it fails too, and both run again.
///
/// Each test holds the change counter row from another connection, as a batch committing on another node does, so
/// the node's first create batch waits inside the server until the test lets it go.
@Suite(TestPostgres.available)
struct PostgresFollowingCreatesTests {
    /// A store whose collection `follow` is known (its creates go out as create batches), and a connection
    /// holding the counter row.
    private struct Setup {
        let url: String
        let store: PostgresDocumentStore
        let holder: PostgresConnection
        let probe: PostgresConnection
        /// The newest change before the test's creates.
        let sequenceBefore: Int64
        /// Each create's answer, by number.
        let outcomes = Shared<[Int: Result<[WriteResult], any Error>]>([:])

        init() throws {
            url = try TestPostgres.freshDatabase()
            store = try PostgresDocumentStore(database: PostgresDatabase(url: url, poolSize: 2))
            try store.create(doc("follow/first"), ["n": 0])
            sequenceBefore = try store.latestSequence()
            holder = try PostgresConnection(url: url)
            try holder.execute("BEGIN")
            try holder.execute("SELECT last_value FROM \(ChangeSequence.table) FOR UPDATE")
            probe = try PostgresConnection(url: url)
        }

        /// Lets the counter row go (should the test have stopped early) and closes the store.
        func close() {
            try? holder.execute("ROLLBACK")
            store.close()
        }

        /// The server process of the create batch waiting for the counter row, once it waits.
        func waitingBatch() throws -> Int64? {
            for _ in 0..<200 {
                let rows = try probe.query(
                    """
                    SELECT pid FROM pg_stat_activity
                    WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'WITH v AS%'
                    """)
                if rows.rowCount == 1 { return try rows.int(0, 0) }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return nil
        }

        /// Waits until `count` create batches were sent behind another one.
        func awaitFollowing(_ count: Int) -> Bool {
            for _ in 0..<200 {
                if store.writer.createBatchesFollowing.load(ordering: .relaxed) >= count { return true }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return false
        }

        /// Creates `follow/d0` … `d<count-1>`: the first goes out alone and waits for the counter row, the rest
        /// queue behind it and are sent behind it. Returns the waiting batch's server process and a group that
        /// is done when every create was answered (into `outcomes`).
        func queueBehindWaitingBatch(_ count: Int) throws -> (pid: Int64, answered: DispatchGroup) {
            let answered = DispatchGroup()
            func create(_ n: Int) throws {
                answered.enter()
                let write = Write(path: try doc("follow/d\(n)"), operation: .create(["n": .int(Int64(n))]))
                store.commit([write]) { result in
                    outcomes.withLock { $0[n] = result }
                    answered.leave()
                }
            }
            try create(0)
            let pid = try #require(try waitingBatch(), "the first create batch never waited for the counter row")
            for n in 1..<count { try create(n) }
            #expect(awaitFollowing(1), "no create batch was sent behind the waiting one")
            return (pid, answered)
        }
    }

    @Test("creates queued behind a waiting create batch follow it on its connection and commit after it, in order")
    func followingCommitsInOrder() throws {
        let setup = try Setup()
        defer { setup.close() }
        let (_, answered) = try setup.queueBehindWaitingBatch(20)
        // Nothing is acknowledged while the first batch waits.
        #expect(setup.outcomes.current.isEmpty)
        try setup.holder.execute("ROLLBACK")
        answered.wait()
        for n in 0..<20 {
            #expect(try setup.outcomes.current[n]?.get().first?.version == 1, "create \(n)")
            #expect(try setup.store.get(doc("follow/d\(n)"))?.fields["n"] == .int(Int64(n)))
        }
        // The first create's entry comes first; the log is dense and in commit-time order.
        let log = try setup.store.changes(after: setup.sequenceBefore, limit: 100)
        #expect(log.map(\.sequence) == Array((setup.sequenceBefore + 1)...(setup.sequenceBefore + 20)))
        #expect(log.first?.path == (try doc("follow/d0")))
        #expect(log.map(\.time) == log.map(\.time).sorted())
    }

    @Test("a create batch that fails takes the one behind it along; both run again and every create lands once")
    func failureAheadRunsBothAgain() throws {
        let setup = try Setup()
        defer { setup.close() }
        let (pid, answered) = try setup.queueBehindWaitingBatch(10)
        // Cancelling the waiting statement fails the first batch; its transaction stays aborted, so the batch
        // behind it fails as well. Both run again as usual batches, which wait for the counter row in turn.
        #expect(try setup.probe.query("SELECT pg_cancel_backend($1::int)", [.int(pid)]).rowCount == 1)
        Thread.sleep(forTimeInterval: 0.2)
        #expect(setup.outcomes.current.isEmpty, "a create was answered while the counter row was held")
        try setup.holder.execute("ROLLBACK")
        answered.wait()
        for n in 0..<10 {
            #expect(try setup.outcomes.current[n]?.get().first?.version == 1, "create \(n)")
        }
        let log = try setup.store.changes(after: setup.sequenceBefore, limit: 100)
        #expect(log.count == 10)
        #expect(Set(log.map(\.path)) == Set(try (0..<10).map { try doc("follow/d\($0)") }))
        let rows = try setup.probe.query("SELECT count(*) FROM docs WHERE id LIKE 'd%'::bytea")
        #expect(try rows.int(0, 0) == 10)
    }
}
