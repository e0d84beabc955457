import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A new empty directory under the system's temporary directory (mode 0700, `kura-<label>-XXXXXX`), for one test;
/// `remove()` deletes it with everything in it. The one temporary-directory helper of every test target.
public struct TemporaryDirectory: Sendable {
    public let path: String

    /// Creates the directory.
    public init(_ label: String) throws {
        var template = Array((NSTemporaryDirectory() + "/kura-\(label)-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw TestFailure("mkdtemp failed: \(String(cString: strerror(errno)))")
        }
        path = String(cString: made)
    }

    /// `path` + `/` + `name`.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Deletes the directory and its contents.
    public func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// A path under the system's temporary directory that nothing uses yet (`kura-<label>-<random>`), not created:
    /// for what the code under test must create itself (a data directory, a database file).
    public static func uniquePath(_ label: String) -> String {
        NSTemporaryDirectory() + "kura-\(label)-" + UUID().uuidString.lowercased()
    }
}
