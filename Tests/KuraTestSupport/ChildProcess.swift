import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process for a test, started with `posix_spawn` instead of Foundation's `Process`.
///
/// `Process.run()` crashed the test process (SIGSEGV in `memmove`) in loaded `make test` runs, always while other
/// suites were starting children too: swift-corelibs-foundation's `findMaximumOpenFromProcSelfFD()` over-reads the
/// `/proc/self/fd` entries it lists (swiftlang/swift-corelibs-foundation pull request 5472, merged after this
/// toolchain). This type leaves Foundation's process machinery out of it, and keeps what `Process` did that tests
/// rely on: the child gets standard input, output and error and no other descriptor of ours (every descriptor from
/// 3 up is closed in the child, so a pipe another test holds never leaks into this child and loses its end-of-file).
///
/// The exit status is the exit code, or 128 + the signal's number for a child a signal ended (as a shell reports
/// it). One lock guards the reaping, so `isRunning` and `waitUntilExit()` may be called from any thread.
public final class ChildProcess: Sendable {
    public let processIdentifier: pid_t
    private let status = Shared<Int32?>(nil)

    /// Starts `executable` (an absolute path; no `PATH` lookup) with `arguments`. `environment` goes over this
    /// process's, or stands alone when `inheritEnvironment` is false. A stream left nil: standard input reads
    /// `/dev/null`; output and error are this process's.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        inheritEnvironment: Bool = true, directory: String? = nil, standardInput: FileHandle? = nil,
        standardOutput: FileHandle? = nil, standardError: FileHandle? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardInput {
            posix_spawn_file_actions_adddup2(&actions, standardInput.fileDescriptor, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if let standardOutput { posix_spawn_file_actions_adddup2(&actions, standardOutput.fileDescriptor, 1) }
        if let standardError { posix_spawn_file_actions_adddup2(&actions, standardError.fileDescriptor, 2) }
        guard SpawnExtensions.closeFrom(&actions, 3) == 0 else { throw TestFailure("addclosefrom_np: \(errno)") }
        if let directory, SpawnExtensions.changeDirectory(&actions, directory) != 0 {
            throw TestFailure("addchdir_np \(directory): \(errno)")
        }

        var variables = inheritEnvironment ? ProcessInfo.processInfo.environment : [:]
        variables.merge(environment) { _, new in new }
        var argv = ([executable] + arguments).map { strdup($0) } + [nil]
        var envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, &argv, &envp)
        guard result == 0 else {
            throw TestFailure("posix_spawn \(executable): \(String(cString: strerror(result)))")
        }
        processIdentifier = pid
    }

    /// Whether the child still runs; reaps it once it has exited.
    public var isRunning: Bool {
        status.withLock { status in
            if status != nil { return false }
            var raw: Int32 = 0
            guard waitpid(processIdentifier, &raw, WNOHANG) == processIdentifier else { return true }
            // WIFEXITED / WEXITSTATUS / WTERMSIG are macros: exited normally when the low 7 bits are 0.
            status = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            return false
        }
    }

    /// The exit status, once the child has exited and been reaped (`isRunning` false, or `waitUntilExit()`).
    public var terminationStatus: Int32? { status.current }

    /// Waits for the child to exit and returns its exit status.
    @discardableResult
    public func waitUntilExit() -> Int32 {
        var pause: useconds_t = 1_000
        while isRunning {
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
        return status.current ?? -1
    }

    /// Waits up to `timeout` seconds for the child to exit on its own and returns its exit status; a child still
    /// running then is killed (SIGKILL), reaped, and reported as nil.
    public func exitStatus(within timeout: Double) -> Int32? {
        if waitUntil(timeout: timeout, { !self.isRunning }) { return waitUntilExit() }
        send(SIGKILL)
        waitUntilExit()
        return nil
    }

    /// Sends `signal` to the child, if it has not been reaped yet (a reaped pid may belong to another process).
    public func send(_ signal: Int32) {
        status.withLock { status in
            if status == nil { _ = kill(processIdentifier, signal) }
        }
    }

    /// SIGTERM.
    public func terminate() { send(SIGTERM) }

    /// SIGTERM, then SIGKILL if the child has not exited within `grace`; waits for it and returns its exit status.
    @discardableResult
    public func stop(grace: Double = 5) -> Int32 {
        terminate()
        if !waitUntil(timeout: grace, { !self.isRunning }) { send(SIGKILL) }
        return waitUntilExit()
    }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` and `_addchdir_np` (2.34 and 2.29), which Swift's Glibc
/// module does not export (they sit behind `_GNU_SOURCE`): looked up once by name.
private enum SpawnExtensions {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias ChangeDirectory =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static let closeFrom: CloseFrom = symbol("posix_spawn_file_actions_addclosefrom_np")
    static let changeDirectory: ChangeDirectory = symbol("posix_spawn_file_actions_addchdir_np")

    private static func symbol<T>(_ name: String) -> T {
        guard let address = dlsym(dlopen(nil, RTLD_NOW), name) else {
            fatalError("\(name) is missing: glibc 2.34 or later is needed")
        }
        return unsafeBitCast(address, to: T.self)
    }
}
