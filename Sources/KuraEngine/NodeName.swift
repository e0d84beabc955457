import Foundation
import KuraCore

/// A node's name among the nodes: host, process id and a random part, new for every channel opened (a restarted
/// process, or a second node in one process as in tests, is a new node).
public enum NodeName {
    public static func make() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let host = gethostname(&buffer, buffer.count) == 0 ? String(cString: buffer) : "node"
        return "\(host)/\(getpid())/\(SecureRandom.hex(4))"
    }
}
