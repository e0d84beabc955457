import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A pipe whose two ends are closed on exec (a `SOCK_CLOEXEC` socket pair), for a child process's standard streams.
///
/// Tests start processes on many threads at once. Foundation's `Pipe` leaves its descriptors inheritable, so a
/// process another test spawns in the same instant (a PostgreSQL server, a shell) inherits the write end of this
/// test's output pipe and keeps it open for its whole life: `readDataToEndOfFile()` then never sees EOF and the
/// test hangs (it did, in `make test`). `ChildProcess` still hands these ends to its own child, because `dup2`
/// onto 0, 1 and 2 clears the flag on the copies.
public struct CloseOnExecPipe: Sendable {
    public let reading: FileHandle
    public let writing: FileHandle

    public init() throws {
        // A socket pair made close-on-exec in the same call (Swift's Glibc module does not export pipe2): setting
        // FD_CLOEXEC afterwards would leave a window for exactly the race this type exists to close. Children
        // read and write it as they would a pipe, and see end-of-file once every copy of the other end is closed.
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        reading = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
        writing = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
    }
}

/// Runs `executable` with `arguments` to its end and returns its exit status and everything it wrote to standard
/// output and error (interleaved as written). `input`, when given, is written to its standard input, which is
/// then closed; without it the child reads end-of-file at once. `environment` goes over this process's
/// (`inheritEnvironment: false`: it alone). The pipes are `CloseOnExecPipe`s; the child is a `ChildProcess`.
public func runToEnd(
    _ executable: URL, _ arguments: [String], environment: [String: String] = [:], inheritEnvironment: Bool = true,
    in directory: String? = nil, input: String? = nil
) throws -> (status: Int32, output: String) {
    let run = try runToEnd(
        executable, arguments, environment: environment, inheritEnvironment: inheritEnvironment, in: directory,
        input: input, errorsApart: false)
    return (run.status, run.output)
}

/// `runToEnd`, with standard error kept apart from standard output (both read at once, so that neither pipe fills
/// and stops the child). `inheritEnvironment: false` gives the child `environment` alone.
public func runToEndApart(
    _ executable: URL, _ arguments: [String], environment: [String: String] = [:], inheritEnvironment: Bool = true,
    in directory: String? = nil, input: String? = nil
) throws -> (status: Int32, output: String, errors: String) {
    try runToEnd(
        executable, arguments, environment: environment, inheritEnvironment: inheritEnvironment, in: directory,
        input: input, errorsApart: true)
}

private func runToEnd(
    _ executable: URL, _ arguments: [String], environment: [String: String], inheritEnvironment: Bool = true,
    in directory: String?, input: String?, errorsApart: Bool
) throws -> (status: Int32, output: String, errors: String) {
    let output = try CloseOnExecPipe()
    let errors = errorsApart ? try CloseOnExecPipe() : output
    let stdin = try CloseOnExecPipe()
    let process = try ChildProcess(
        executable.path, arguments, environment: environment, inheritEnvironment: inheritEnvironment,
        directory: directory, standardInput: stdin.reading, standardOutput: output.writing,
        standardError: errors.writing)
    // The parent's copies: only the child may hold the write ends, or end-of-file never comes.
    try output.writing.close()
    if errorsApart { try errors.writing.close() }
    try stdin.reading.close()
    if let input { try stdin.writing.write(contentsOf: Data(input.utf8)) }
    try stdin.writing.close()
    let errorsRead = Shared(Data())
    let reading = DispatchGroup()
    if errorsApart {
        reading.enter()
        Thread {
            errorsRead.withLock { $0 = errors.reading.readDataToEndOfFile() }
            reading.leave()
        }.start()
    }
    let data = output.reading.readDataToEndOfFile()
    reading.wait()
    let status = process.waitUntilExit()
    return (
        status, String(decoding: data, as: UTF8.self),
        String(decoding: errorsRead.current, as: UTF8.self)
    )
}
