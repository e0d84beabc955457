import Foundation
import KuraCore
import KuraPostgresEngine
import KuraSQLiteEngine
import KuraStore

extension SQLiteEngine {
    /// One node per data directory (`DataDirectoryLock`): nobody to tell; the rules and the admin key stay in the
    /// data directory.
    func openCluster(log: @escaping @Sendable (String) -> Void) throws -> any ClusterChannel {
        LocalClusterChannel()
    }
}

extension PostgresEngine {
    /// `LISTEN`/`NOTIFY` on the database, the rules and admin key in it (Cluster/ in KuraPostgresEngine).
    func openCluster(log: @escaping @Sendable (String) -> Void) throws -> any ClusterChannel {
        try database.prepared()
        return PostgresClusterChannel(database: database, node: NodeName.make(), log: log)
    }
}

/// A node's name among the nodes: host, process id and a random part, new for every channel opened (a restarted
/// process, or a second node in one process as in tests, is a new node).
enum NodeName {
    static func make() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let host = gethostname(&buffer, buffer.count) == 0 ? String(cString: buffer) : "node"
        return "\(host)/\(getpid())/\(SecureRandom.hex(4))"
    }
}
