import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// `kura-todo` end to end: the built executable against an in-process server, two processes at once.
@Suite struct TodoAppTests {
    /// The executable built next to the test bundle (`swift build --build-tests` builds every product).
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("kura-todo")

    /// A `kura-todo` process (a `ChildProcess`) whose output is collected as it arrives.
    final class TodoProcess: Sendable {
        private let process: ChildProcess
        private let output = Shared(Data())
        private let outputEnded = Shared(false)
        let arguments: [String]

        init(_ arguments: [String], server: TestKura, session: URL) throws {
            self.arguments = arguments
            // Its own environment, without TERM: the watcher prints plain text instead of clearing the screen.
            let pipe = try CloseOnExecPipe()
            process = try ChildProcess(
                TodoAppTests.executable.path,
                ["--server", server.url.absoluteString, "--session", session.path] + arguments,
                environment: ["HOME": NSTemporaryDirectory(), "PATH": "/usr/bin:/bin"], inheritEnvironment: false,
                standardOutput: pipe.writing, standardError: pipe.writing)
            try pipe.writing.close()
            let (output, outputEnded) = (self.output, self.outputEnded)
            Thread.detachNewThread {
                // `availableData`: what has arrived, as it arrives (`read(upToCount:)` waits for the whole count).
                while case let chunk = pipe.reading.availableData, !chunk.isEmpty {
                    output.withLock { $0 += chunk }
                }
                outputEnded.withLock { $0 = true }
            }
        }

        /// What it printed so far (decoded whole, so that a character split between two reads comes out right).
        var text: String { String(decoding: output.current, as: UTF8.self) }

        var isRunning: Bool { process.isRunning }

        /// Waits for the process to exit; returns its status and everything it printed.
        func finish(timeout: Duration = .seconds(20)) async throws -> (Int32, String) {
            guard await eventually(timeout: timeout, { !self.isRunning }) else {
                stop()
                throw TestFailure("kura-todo \(arguments) did not exit; output: \(text)")
            }
            // Everything it printed: the pipe's end-of-file comes once the process is gone.
            _ = await eventually(timeout: timeout) { self.outputEnded.current }
            return (process.waitUntilExit(), text)
        }

        func stop() { process.stop() }
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
