import Foundation
import KuraModel
import KuraPostgres
import KuraStore
import KuraStoreTestSupport
import KuraTestSupport
import Testing

@testable import KuraPostgresEngine

/// One node builds a composite index at a time (`build_owner`, `build_lease_until`); another leaves the build to
/// it and takes it over once it stopped.
@Suite(TestPostgres.available)
struct IndexBuildClaimTests {
    /// A node: a store with a pool of its own, a short lease, and its log.
    final class Node: Sendable {
        let store: PostgresDocumentStore
        let log = Shared<[String]>([])

        init(_ url: String) throws {
            let log = self.log
            store = try PostgresDocumentStore(
                database: PostgresDatabase(url: url, poolSize: 2),
                configuration: .init(log: { line in log.withLock { $0.append(line) } }, indexBuildLease: 400_000))
        }

        func logged(_ text: String) -> Bool { log.current.contains { $0.contains(text) } }
        var state: CompositeIndexStatus.State? { store.compositeIndexes.first?.state }
    }

    static let documents = 30

    /// Seeds the documents and returns the index their query needs.
    static func seed(_ store: PostgresDocumentStore) throws -> CompositeIndex {
        for i in 0..<documents { try store.set(doc("items/d\(i)"), ["cat": .int(Int64(i % 3)), "n": .int(Int64(i))]) }
        let query = StructuredQuery(
            .collection(try col("items")), filters: [Filter(.field(try field("cat")), .equal, 1)],
            orderBy: [Order(.field(try field("n")), descending: true)])
        return try #require(CompositeIndex.suggested(for: try NormalizedQuery(query)))
    }

    static func entries(_ connection: PostgresConnection) throws -> Int64? {
        try connection.query("SELECT count(*) FROM cidx").int(0, 0)
    }

    /// Sessions of this database waiting for a lock, and their server processes.
    static func waitingForLocks(_ connection: PostgresConnection) throws -> [Int64] {
        let rows = try connection.query(
            """
            SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' ORDER BY pid
            """)
        return try (0..<rows.rowCount).compactMap { try rows.int($0, 0) }
    }

    @Test("while one node runs a build step, a node that opens the store leaves the build alone; it takes over after")
    func secondNodeSkipsARunningBuild() throws {
        let url = try TestPostgres.freshDatabase()
        let a = try Node(url)
        let index = try Self.seed(a.store)
        // Holds every build step at its read of the documents (after it locked the index's row).
        let blocker = try PostgresConnection(url: url)
        try blocker.execute("BEGIN; LOCK TABLE docs IN EXCLUSIVE MODE")
        try a.store.createIndex(index)
        #expect(try waitUntil(timeout: 30) { try Self.waitingForLocks(blocker).count == 1 })
        let builderOfA = try #require(try Self.waitingForLocks(blocker).first)

        // The second node opens the store meanwhile (a restart): it does not wait behind a's step.
        let b = try Node(url)
        defer { b.store.close() }
        let idle = Shared(false)
        let waited = TestThread {
            b.store.waitForIndexJobs()
            idle.withLock { $0 = true }
        }
        #expect(waitUntil(timeout: 30) { idle.current })
        #expect(b.logged("another node is building it"))
        #expect(try Self.waitingForLocks(blocker) == [builderOfA])

        // a dies mid-step: the store is closed and its session cut, so nothing of a goes on.
        let closing = TestThread { a.store.close() }
        try blocker.query("SELECT pg_terminate_backend($1::int)", [.int(builderOfA)])
        _ = try closing.join()
        try blocker.execute("COMMIT")
        _ = try waited.join()
        #expect(waitUntil(timeout: 60) { b.state == .ready })
        #expect(b.logged("taking over the build from another node"))
        #expect(try Self.entries(blocker) == Int64(Self.documents))
        #expect(!a.logged("ERROR"))
    }

    @Test("a build whose lease another node holds is left to it until the lease ends, then taken over")
    func leaseIsRespectedThenTakenOver() throws {
        let url = try TestPostgres.freshDatabase()
        let first = try Node(url)
        let index = try Self.seed(first.store)
        try first.store.createIndex(index)
        first.store.waitForIndexJobs()
        #expect(first.state == .ready)
        first.store.close()
        // As a node leaves it that is between two steps of the build, alive (or silently gone).
        let connection = try PostgresConnection(url: url)
        try connection.execute(
            """
            UPDATE composite_indexes SET state = 'CREATING', build_rid = 0, scanned = 0, build_owner = 'elsewhere',
                build_lease_until = now() + interval '1 hour';
            DELETE FROM cidx;
            UPDATE composite_catalog SET version = version + 1
            """)

        let b = try Node(url)
        defer { b.store.close() }
        #expect(waitUntil(timeout: 30) { b.logged("another node is building it") })
        b.store.waitForIndexJobs()
        #expect(b.state == .creating)
        #expect(try Self.entries(connection) == 0)

        try connection.execute("UPDATE composite_indexes SET build_lease_until = now()")
        #expect(waitUntil(timeout: 60) { b.state == .ready })
        #expect(b.logged("taking over the build from another node"))
        #expect(try Self.entries(connection) == Int64(Self.documents))
        let owner = try connection.query("SELECT build_owner FROM composite_indexes").string(0, 0)
        #expect(owner == b.store.builder)
    }
}
