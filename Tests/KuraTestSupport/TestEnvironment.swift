import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A failure of a test's own expectations or of its harness, that is not an `#expect`.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// What the tests find on the machine: the checkout, the test Python, free ports.
public enum TestEnvironment {
    /// The repository checkout, found from this file's path.
    public static let repositoryRoot: String = {
        var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)  // Tests/KuraTestSupport/TestEnvironment.swift
        return components.joined(separator: "/")
    }()

    /// `KURA_TEST_PYTHON`, else `.venv-test/bin/python` in the checkout.
    public static func python() throws -> String {
        if let path = ProcessInfo.processInfo.environment["KURA_TEST_PYTHON"], !path.isEmpty,
            FileManager.default.isExecutableFile(atPath: path)
        {
            return path
        }
        let venv = repositoryRoot + "/.venv-test/bin/python"
        guard FileManager.default.isExecutableFile(atPath: venv) else {
            throw TestFailure(
                "no Python with aiosmtpd: run `make deps-test` (creates .venv-test) or set KURA_TEST_PYTHON")
        }
        return venv
    }

    /// A TCP port on 127.0.0.1 that nothing is bound to right now, for a server a test starts on it. Picked below
    /// the kernel's ephemeral range (`ip_local_port_range`): the kernel gives ports from that range to every
    /// outgoing connection and every server on port 0, and one of those could take a port of that range before
    /// the test's server binds it. From 11000 up, as the browser harness: browsers refuse to connect to some lower
    /// ports (Chromium's restricted ports end at 10080). Never the same port twice in one test process. Where the
    /// range leaves no room below it, the kernel's pick for port 0.
    public static func freePort() throws -> Int {
        if ephemeralStart > lowestPort {
            for _ in 0..<1000 {
                let port = Int.random(in: lowestPort..<ephemeralStart)
                guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
                if try bound(port) != nil { return port }
            }
        }
        guard let port = try bound(0) else { throw TestFailure("bind failed") }
        return port
    }

    private static let lowestPort = 11_000

    private static let handedOut = Mutex<Set<Int>>([])

    /// The first port of `/proc/sys/net/ipv4/ip_local_port_range` (Linux's default, 32768, if unreadable); read
    /// once per test process.
    private static let ephemeralStart: Int = {
        let range = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        return range?.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
    }()

    /// Binds a socket to 127.0.0.1:`port` and closes it; the port it had, or `nil` when the bind failed.
    private static func bound(_ port: Int) throws -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        return ok ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
}

/// Polls `condition` every 10 ms until it holds or `timeout` seconds pass; returns whether it held.
@discardableResult
public func waitUntil(timeout: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        usleep(10_000)
    }
    return try condition()
}

/// Runs `body` on `count` new threads (real ones: `concurrentPerform` would use only as many as there are cores)
/// and waits for all of them.
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    group.wait()
}
