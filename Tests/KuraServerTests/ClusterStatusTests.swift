import Foundation
import KuraModel
import KuraServerTestSupport
import KuraTestSupport
import Testing

@testable import KuraServer

/// `GET /api/admin/status` on PostgreSQL: the nodes that share the database, as each records itself alive, and
/// the database's size.
@Suite(TestPostgres.available, .enabled(if: postgresEngineBuilt, "the PostgreSQL engine is not built in"))
struct ClusterStatusTests {
    /// The status's `nodes` on `server`.
    static func nodes(_ server: TestKura) throws -> [[String: Any]] {
        let response = try server.request("GET", "/api/admin/status")
        try #require(response.status == 200, "\(response)")
        return try #require(response.json["nodes"] as? [[String: Any]], "\(response.json)")
    }

    @Test("each node lists both, itself marked, with address, version and start; a stopped node leaves the list")
    func twoNodes() throws {
        try ClusterNodeTests.withTwoNodes { a, b, _ in
            let addresses = ["127.0.0.1:\(a.port)", "127.0.0.1:\(b.port)"]
            // Each node records itself when its listener connects, on its own thread: wait for both rows.
            #expect(
                try waitUntil(timeout: 20) {
                    try Set(Self.nodes(a).compactMap { $0["address"] as? String }) == Set(addresses)
                })
            for (server, address) in [(a, addresses[0]), (b, addresses[1])] {
                let nodes = try Self.nodes(server)
                #expect(nodes.count == 2, "\(nodes)")
                let me = nodes.filter { $0["self"] as? Bool == true }
                #expect(me.count == 1 && me.first?["address"] as? String == address)
                for node in nodes {
                    #expect(node["version"] as? String == KuraNode.version)
                    #expect(node["alive"] as? Bool == true)
                    #expect((node["name"] as? String)?.isEmpty == false)
                    #expect((node["startTime"] as? String).flatMap(RFC3339.parse) != nil)
                    #expect((node["lastSeen"] as? String).flatMap(RFC3339.parse) != nil)
                    #expect((node["lastSeenSecondsAgo"] as? Double).map { $0 >= 0 } == true)
                }
                let status = try server.request("GET", "/api/admin/status").json
                #expect(status["engine"] as? String == "postgres")
                #expect((status["dataBytes"] as? Int).map { $0 > 0 } == true)
            }
            // A stopping node removes its row.
            b.shutdown()
            #expect(try waitUntil(timeout: 20) { try Self.nodes(a).count == 1 })
            #expect(try Self.nodes(a).first?["address"] as? String == addresses[0])
        }
    }
}
