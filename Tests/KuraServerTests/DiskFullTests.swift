import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// A data directory on a small tmpfs that fills up: writes are refused with 507 `INSUFFICIENT_STORAGE`, reads go on,
/// nothing acknowledged is lost, and writes work again once there is room (docs/reliability.md, "Disk full").
/// Mounting needs root, as `make test` runs in CI; elsewhere the suite is skipped.
@Suite(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
struct DiskFullTests {
    /// Mounts a tmpfs of `megabytes` at a fresh directory; `resize` changes its size; `unmount` removes it.
    final class SmallDisk {
        let path: String
        init(megabytes: Int) throws {
            path = TemporaryDirectory.uniquePath("disk-full")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try Self.mount(["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0700", "tmpfs", path])
        }
        func resize(megabytes: Int) throws { try Self.mount(["-o", "remount,size=\(megabytes)m", path]) }
        func unmount() {
            _ = try? Self.run("/bin/umount", ["-l", path])
            try? FileManager.default.removeItem(atPath: path)
        }
        static func mount(_ arguments: [String]) throws { try run("/bin/mount", arguments) }
        static func run(_ tool: String, _ arguments: [String]) throws {
            let run = try runToEnd(URL(fileURLWithPath: tool), arguments)
            guard run.status == 0 else { throw TestFailure("\(tool) \(arguments) failed: \(run.output)") }
        }
    }

    @Test("a full disk: writes 507 INSUFFICIENT_STORAGE, reads go on, nothing lost, writes resume with room")
    func fullDisk() throws {
        let disk = try SmallDisk(megabytes: 6)
        defer { disk.unmount() }
        let data = disk.path + "/data"
        let server = try TestKura(configure: { $0.dataDirectory = data })
        defer { server.shutdown() }
        let filler = String(repeating: "x", count: 200_000)
        var stored: [String] = []
        var refused: HTTPResponse?
        for index in 0..<100 {
            let response = try server.request("PUT", "/api/docs/big/d\(index)", json: ["data": ["b": filler]])
            if response.status == 200 {
                stored.append("d\(index)")
            } else {
                refused = response
                break
            }
        }
        let full = try #require(refused, "the disk never filled up")
        expectError(full, 507, .insufficientStorage)
        #expect(!stored.isEmpty)
        // Small writes, creates and commits are refused too (or fit, but are never half-made); reads go on.
        let create = try server.request("POST", "/api/docs/big", json: ["data": ["b": filler]])
        #expect([201, 507].contains(create.status), "\(create)")
        for id in stored {
            let read = try server.request("GET", "/api/docs/big/\(id)")
            #expect(read.status == 200 && (read.data?["b"] as? String)?.count == filler.count, "\(id)")
        }
        // Room again: writes go through, and after a restart everything acknowledged is there.
        try disk.resize(megabytes: 40)
        let after = try server.request("PUT", "/api/docs/big/after", json: ["data": ["b": filler]])
        #expect(after.status == 200, "\(after)")
        server.stop()
        try server.start()
        for id in stored + ["after"] {
            #expect(try server.request("GET", "/api/docs/big/\(id)").status == 200, "\(id)")
        }
        let list = try server.request("GET", "/api/docs/big?limit=300")
        #expect(list.documentIDs.count >= stored.count + 1)
    }
}
