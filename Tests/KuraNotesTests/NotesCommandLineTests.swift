import Foundation
import KuraNotes
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// `kura-notes` end to end: the built executable against an in-process server.
@Suite struct NotesCommandLineTests {
    /// The executable built next to the test bundle (`swift build --build-tests` builds every product).
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("kura-notes")

    /// Runs `kura-notes` with `arguments` and `input` on standard input; returns its status and output.
    /// (`posix_spawn`, not Foundation's `Process`: see TodoAppTests.)
    static func run(
        _ arguments: [String], server: TestKura?, session: String, input: String = "", language: String = "C"
    ) async throws -> (Int32, String) {
        var argv = [executable.path, "--session", session]
        if let server { argv += ["--server", server.url.absoluteString] }
        argv += arguments
        let envp = ["HOME=" + NSTemporaryDirectory(), "PATH=/usr/bin:/bin", "LANG=" + language]
        let command = argv
        return try await offPool {
            let argv = command
            var output: [Int32] = [-1, -1]
            var stdin: [Int32] = [-1, -1]
            guard pipe(&output) == 0, pipe(&stdin) == 0 else { throw TestFailure("pipe: \(errno)") }
            for fd in output + stdin { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, stdin[0], 0)
            posix_spawn_file_actions_adddup2(&actions, output[1], 1)
            posix_spawn_file_actions_adddup2(&actions, output[1], 2)
            var cArgv = argv.map { strdup($0) } + [nil]
            var cEnvp = envp.map { strdup($0) } + [nil]
            defer { for pointer in cArgv + cEnvp { free(pointer) } }
            var pid: pid_t = 0
            let rc = posix_spawn(&pid, argv[0], &actions, nil, &cArgv, &cEnvp)
            close(output[1])
            close(stdin[0])
            guard rc == 0 else { throw TestFailure("posix_spawn: \(rc)") }
            let bytes = Array(input.utf8)
            _ = bytes.withUnsafeBufferPointer { write(stdin[1], $0.baseAddress, $0.count) }
            close(stdin[1])
            var text: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(output[0], &buffer, buffer.count)
                if count <= 0 { break }
                text += buffer[..<count]
            }
            close(output[0])
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            return (code, String(decoding: text, as: UTF8.self))
        }
    }

    @Test func helpAndMistakes() async throws {
        let session = TemporaryDirectory.uniquePath("notes") + "/session.json"
        let (status, text) = try await Self.run(["--help"], server: nil, session: session)
        #expect(status == 0)
        #expect(text.contains("notebooks create NAME") && text.contains("words add") && text.contains("search TEXT"))
        let (bad, message) = try await Self.run(["dance"], server: nil, session: session)
        #expect(bad == 2 && message.contains("unknown command"))
    }

    @Test func signUpVerifyNotebooksWordsSearchAndDelete() async throws {
        try await withNotesServer { server in
            let session = TemporaryDirectory.uniquePath("notes") + "/session.json"
            let email = uniqueEmail()
            func run(_ arguments: [String], input: String = "") async throws -> (Int32, String) {
                try await Self.run(arguments, server: server, session: session, input: input)
            }
            var (status, text) = try await run(["signup", email, "secret-pw"])
            #expect(status == 0 && text.contains("Open the link in the verification mail"), "\(text)")
            (status, text) = try await run(["notebooks"])
            #expect(status == 1 && text.contains("not verified yet"), "\(text)")
            (status, text) = try await run(["verify"])
            #expect(status == 1 && text.contains("not verified yet"), "\(text)")
            try await followVerificationLink(server, to: email)
            (status, text) = try await run(["verify"])
            #expect(status == 0 && text.contains("is verified"), "\(text)")

            (status, text) = try await run(["notebooks"])
            #expect(status == 0 && text.contains("no notebooks yet"), "\(text)")
            (status, text) = try await run(["notebooks", "create", "  English "])
            #expect(status == 0 && text.contains("Created the notebook “English”."), "\(text)")
            (status, text) = try await run(["notebooks", "create", "ＥＮＧＬＩＳＨ"])
            #expect(status == 1 && text.contains("already have a notebook called “ＥＮＧＬＩＳＨ”"), "\(text)")
            (status, text) = try await run(["notebooks", "create", "   "])
            #expect(status == 1 && text.contains("cannot be blank"), "\(text)")
            (status, text) = try await run(["notebooks", "create", "日本語"])
            #expect(status == 0, "\(text)")

            (status, text) = try await run(["words", "add", "english", "apple", "a fruit; りんご"])
            #expect(status == 0 && text.contains("Added “apple” to “English”"), "\(text)")
            (status, text) = try await run(["words", "add", "English", "Banana", "a yellow fruit"])
            (status, text) = try await run(["words", "add", "日本語", "コーヒー", "飲み物"])
            (status, text) = try await run(["words", "add", "日本語", "りんご"])
            (status, text) = try await run(["words", "list", "English"])
            #expect(status == 0 && text.contains("apple — a fruit; りんご") && text.contains("Banana"), "\(text)")
            let bananaID = text.split(separator: "\n").first { $0.contains("Banana") }!.split(separator: " ")[0]
            (status, text) = try await run(["words", "edit", String(bananaID), "banana", "a long yellow fruit"])
            #expect(status == 0 && text.contains("Saved “banana”"), "\(text)")

            (status, text) = try await run(["search", "ﾘﾝｺﾞ"])
            #expect(
                status == 0 && text.contains("2 found.") && text.contains("[English]") && text.contains("[日本語]"),
                "\(text)")
            (status, text) = try await run(["search", "ｺｰﾋｰ", "--in", "にほんご"])
            #expect(status == 1 && text.contains("There is no notebook “にほんご”."), "\(text)")
            (status, text) = try await run(["search", "", "--in", "日本語"])
            #expect(status == 0 && text.contains("2 found."), "\(text)")
            (status, text) = try await run(["search", "LONG", "--in", "english"])
            #expect(
                status == 0 && text.contains("1 found.") && text.contains("banana — a long yellow fruit"), "\(text)")

            (status, text) = try await run(["notebooks", "rename", "English", "日本語"])
            #expect(status == 1 && text.contains("already have a notebook called “日本語”"), "\(text)")
            (status, text) = try await run(["notebooks", "rename", "English", "English words"])
            #expect(status == 0 && text.contains("Renamed “English” to “English words”."), "\(text)")
            (status, text) = try await run(["notebooks"])
            #expect(text.contains("English words  (2 words)") && text.contains("日本語  (2 words)"), "\(text)")

            (status, text) = try await run(["notebooks", "delete", "English words"], input: "n\n")
            #expect(status == 0 && text.contains("and its 2 words?") && text.contains("Nothing deleted."), "\(text)")
            (status, text) = try await run(["notebooks", "delete", "English words"], input: "y\n")
            #expect(status == 0 && text.contains("Deleted “English words” and its 2 words."), "\(text)")
            (status, text) = try await run(["search", "apple"])
            #expect(status == 0 && text.contains("Nothing found."), "\(text)")

            // The account disabled elsewhere: the next command says the session ended.
            try await offPool {
                let uid = try server.signIn(email).uid
                try server.adminUpdate(uid, ["disabled": true])
            }
            (status, text) = try await run(["notebooks"])
            #expect(status == 1 && text.contains("session ended"), "\(text)")
        }
    }
}
