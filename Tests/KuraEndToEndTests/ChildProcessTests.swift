import Foundation
import KuraTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ChildProcess`, which starts every child the tests run: what a child gets from the test process, and what its
/// exit status says.
@Suite struct ChildProcessTests {
    static let shell = URL(fileURLWithPath: "/bin/sh")

    @Test("a descriptor the test process left inheritable does not reach the child; its standard streams do")
    func onlyTheStandardStreamsReachTheChild() throws {
        let inheritable = open("/dev/null", O_RDONLY)
        try #require(inheritable > 2)
        defer { close(inheritable) }
        let run = try runToEnd(
            Self.shell,
            [
                "-c",
                "for fd in 0 1 2 \(inheritable); do [ -e /proc/self/fd/$fd ] && echo $fd open || echo $fd closed; done",
            ]
        )
        #expect(run.status == 0)
        #expect(run.output == "0 open\n1 open\n2 open\n\(inheritable) closed\n")
    }

    @Test("the exit status is the exit code, or 128 + the signal for a child a signal ended")
    func exitStatus() throws {
        #expect(try runToEnd(Self.shell, ["-c", "exit 3"]).status == 3)
        #expect(try runToEnd(Self.shell, ["-c", "kill -KILL $$"]).status == 128 + SIGKILL)
        let sleeper = try ChildProcess("/bin/sleep", ["600"])
        #expect(sleeper.isRunning)
        #expect(sleeper.exitStatus(within: 0) == nil)
        #expect(!sleeper.isRunning)
        #expect(sleeper.terminationStatus == 128 + SIGKILL)
    }

    @Test("the directory, the environment alone or over this process's, and the input written to the child")
    func directoryEnvironmentAndInput() throws {
        let directory = try TemporaryDirectory("child")
        defer { directory.remove() }
        let inDirectory = try runToEnd(URL(fileURLWithPath: "/bin/pwd"), [], in: directory.path)
        #expect(inDirectory.output == directory.path.replacingOccurrences(of: "//", with: "/") + "\n")
        let alone = try runToEndApart(
            URL(fileURLWithPath: "/usr/bin/env"), [], environment: ["ONLY": "this"], inheritEnvironment: false)
        #expect(alone.output == "ONLY=this\n")
        let over = try runToEnd(Self.shell, ["-c", "echo \"$ADDED:${PATH:+path}\""], environment: ["ADDED": "yes"])
        #expect(over.output == "yes:path\n")
        let echoed = try runToEnd(URL(fileURLWithPath: "/bin/cat"), [], input: "こんにちは\n")
        #expect(echoed.output == "こんにちは\n")
        let noInput = try runToEnd(URL(fileURLWithPath: "/bin/cat"), [])
        #expect(noInput.status == 0 && noInput.output.isEmpty)
    }
}
