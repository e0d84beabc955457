import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// `kura-todo` end to end: the built executable against an in-process server, two processes at once.
@Suite struct TodoAppTests {
    /// The executable built next to the test bundle (`swift build --build-tests` builds every product).
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("kura-todo")

    /// A `kura-todo` process whose output is collected as it arrives.
    ///
    /// Started with `posix_spawn`, not Foundation's `Process`: `Process.run()` crashed (a bad read in its memcpy)
    /// in two of five full parallel `make test` runs, always here, while other suites were starting servers and
    /// child processes; spawning directly leaves Foundation's process machinery out of it.
    final class TodoProcess: Sendable {
        private let pid: pid_t
        private let output = Shared("")
        private let exit = Shared<Int32?>(nil)
        let arguments: [String]

        init(_ arguments: [String], server: TestKura, session: URL) throws {
            self.arguments = arguments
            let argv =
                [TodoAppTests.executable.path, "--server", server.url.absoluteString, "--session", session.path]
                + arguments
            // No TERM: the watcher prints plain text instead of clearing the screen.
            let envp = ["HOME=" + NSTemporaryDirectory(), "PATH=/usr/bin:/bin"]
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { throw TestFailure("pipe: \(errno)") }
            // Other tests spawn children too: theirs must not inherit this pipe (its reader would never see EOF).
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
            posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
            var cArgv = argv.map { strdup($0) } + [nil]
            var cEnvp = envp.map { strdup($0) } + [nil]
            defer { for pointer in cArgv + cEnvp { free(pointer) } }
            var pid: pid_t = 0
            let rc = posix_spawn(&pid, argv[0], &actions, nil, &cArgv, &cEnvp)
            close(fds[1])
            guard rc == 0 else {
                close(fds[0])
                throw TestFailure("posix_spawn \(argv[0]): \(rc)")
            }
            self.pid = pid
            let output = self.output
            let readEnd = fds[0]
            Thread.detachNewThread {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = read(readEnd, &buffer, buffer.count)
                    if count <= 0 { break }
                    output.withLock { $0 += String(decoding: buffer[..<count], as: UTF8.self) }
                }
                close(readEnd)
            }
        }

        var text: String { output.withLock { $0 } }

        /// Whether the process still runs (reaps it once it has exited).
        var isRunning: Bool {
            if exit.withLock({ $0 }) != nil { return false }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return true }
            // WIFEXITED / WEXITSTATUS are macros: exited normally when the low 7 bits are 0.
            let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            exit.withLock { $0 = code }
            return false
        }

        /// Waits for the process to exit; returns its status and everything it printed.
        func finish(timeout: Duration = .seconds(20)) async throws -> (Int32, String) {
            guard await eventually(timeout: timeout, { !self.isRunning }) else {
                stop()
                throw TestFailure("kura-todo \(arguments) did not exit; output: \(text)")
            }
            // Let the pipe drain.
            try await Task.sleep(for: .milliseconds(50))
            return (exit.withLock { $0 } ?? -1, text)
        }

        func stop() {
            if isRunning { kill(pid, SIGTERM) }
            while isRunning { usleep(10_000) }
        }
    }

    /// The uid in `… (uid X)…` output.
    func uid(in output: String) throws -> String {
        guard let start = output.range(of: "(uid "), let end = output[start.upperBound...].firstIndex(of: ")") else {
            throw TestFailure("no uid in \(output)")
        }
        return String(output[start.upperBound..<end])
    }

    func run(_ arguments: [String], _ server: TestKura, _ session: URL) async throws -> (Int32, String) {
        try await TodoProcess(arguments, server: server, session: session).finish()
    }

    @Test func watchShowsWhatAnotherProcessAdds() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build kura-todo first")
        // Streams re-check their credentials every half second, so the watcher notices the logout quickly.
        try await withServer(configure: { $0.realtime.authCheckSeconds = 0.5 }) { server in
            let session = temporaryFile("todo-session.json")
            defer { try? FileManager.default.removeItem(at: session) }
            let email = uniqueEmail("todo")

            var (status, output) = try await run(["list"], server, session)
            #expect(status == 2, "\(output)")
            #expect(output.contains("not signed in"))

            (status, output) = try await run(["signup", email, "secret-pw"], server, session)
            #expect(status == 0, "\(output)")
            #expect(output.contains("signed up as \(email)"))
            let mode = try FileManager.default.attributesOfItem(atPath: session.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)

            let watcher = try TodoProcess(["watch"], server: server, session: session)
            defer { watcher.stop() }
            #expect(await eventually { watcher.text.contains("--- 0 to-do(s) ---") }, "\(watcher.text)")

            (status, output) = try await run(["add", "buy", "milk"], server, session)
            #expect(status == 0, "\(output)")
            let id = try #require(
                output.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
            #expect(id.count == 20)
            // The watcher redraws with the new to-do.
            #expect(await eventually { watcher.text.contains("[ ] \(id)  buy milk") }, "\(watcher.text)")
            #expect(watcher.text.contains("--- 1 to-do(s); added \(id) ---"))

            (status, output) = try await run(["list"], server, session)
            #expect(output == "[ ] \(id)  buy milk\n")

            (status, output) = try await run(["done", String(id.prefix(12))], server, session)
            #expect(status == 0, "\(output)")
            #expect(await eventually { watcher.text.contains("[x] \(id)  buy milk") }, "\(watcher.text)")

            (status, output) = try await run(["rm", id], server, session)
            #expect(status == 0, "\(output)")
            #expect(
                await eventually { watcher.text.hasSuffix("--- 0 to-do(s); removed \(id) ---\n") }, "\(watcher.text)")

            // The data is where the seed app keeps it: users/{uid}/todos/{id}, with a server timestamp.
            let uid = try uid(in: try await run(["whoami"], server, session).1)
            #expect(try await server.documentJSON("users/\(uid)") == nil)
            #expect(try await server.documentJSON("users/\(uid)/todos/\(id)") == nil)

            (status, output) = try await run(["logout"], server, session)
            #expect(status == 0, "\(output)")
            #expect(!FileManager.default.fileExists(atPath: session.path))
            // The watcher shared the session, which is revoked now: it stops with an error.
            let (watchStatus, watchOutput) = try await watcher.finish()
            #expect(watchStatus == 1)
            #expect(
                watchOutput.hasSuffix("kura-todo: signed out (the session ended); log in again\n"), "\(watchOutput)")
            (status, output) = try await run(["login", email, "wrong-pw"], server, session)
            #expect(status == 1)
            #expect(output.contains("INVALID_LOGIN_CREDENTIALS"))
        }
    }

    @Test func addedTodosHaveTheSeedAppsFields() async throws {
        try await withServer { server in
            let session = temporaryFile("todo-session.json")
            defer { try? FileManager.default.removeItem(at: session) }
            var (status, output) = try await run(["signup", uniqueEmail("todo"), "secret-pw"], server, session)
            #expect(status == 0, "\(output)")
            let uid = try uid(in: output)
            (status, output) = try await run(["add", "eggs"], server, session)
            let id = try #require(output.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
            let stored = try #require(try await server.document("users/\(uid)/todos/\(id)"))
            #expect(stored["title"] as? String == "eggs")
            #expect(stored["done"] as? Bool == false)
            #expect((stored["createdAt"] as? String).map { $0.hasSuffix("Z") && $0.count == 27 } == true)
            #expect(stored.count == 3)
            (status, output) = try await run(["done", "nope"], server, session)
            #expect(status == 2)
            #expect(output.contains("no to-do nope"))
        }
    }

    @Test func offlineCacheKeepsChangesUntilTheServerIsBack() async throws {
        try await withServer { server in
            let session = temporaryFile("todo-session.json")
            let cache = temporaryFile("todo-cache.sqlite")
            defer {
                try? FileManager.default.removeItem(at: session)
                removeDatabase(cache)
            }
            func todo(_ arguments: [String]) async throws -> (Int32, String) {
                try await run(["--cache", cache.path] + arguments, server, session)
            }
            var (status, output) = try await todo(["signup", uniqueEmail("todo"), "secret-pw"])
            let uid = try uid(in: output)
            (status, output) = try await todo(["add", "one"])
            #expect(status == 0, "\(output)")

            await server.stopOffPool()
            (status, output) = try await todo(["list"])
            #expect(status == 0, "\(output)")
            #expect(output.contains("  one\n"))
            (status, output) = try await todo(["add", "two"])
            #expect(status == 0, "\(output)")
            #expect(output.contains("offline; 1 change(s) saved locally"))
            let id = try #require(output.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
            #expect(try await todo(["list"]).1.contains("[ ] \(id)  two"))

            try await server.startOffPool()
            (status, output) = try await todo(["list"])
            #expect(status == 0, "\(output)")
            #expect(!output.contains("offline"))
            #expect(try await server.document("users/\(uid)/todos/\(id)")?["title"] as? String == "two")
            #expect(try await server.documentJSON("users/\(uid)/todos/\(id)")?["version"] as? Int == 1)
        }
    }
}
