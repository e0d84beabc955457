import Foundation
import KuraQuiz
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// `kura-quiz` end to end: the built executable against an in-process server.
@Suite struct QuizCommandLineTests {
    /// The executable built next to the test bundle (`swift build --build-tests` builds every product).
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("kura-quiz")

    /// Runs `kura-quiz` with `arguments` and `input` on standard input; returns its status and output.
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
        let session = TemporaryDirectory.uniquePath("quiz") + "/session.json"
        let (status, text) = try await Self.run(["--help"], server: nil, session: session)
        #expect(status == 0)
        #expect(text.contains("play [ID]") && text.contains("leaderboard") && text.contains("import"))
        let (bad, message) = try await Self.run(["dance"], server: nil, session: session)
        #expect(bad == 2 && message.contains("unknown command"))
    }

    @Test func importListPlayAndTheRanking() async throws {
        try await withQuizServer { server in
            let directory = TemporaryDirectory.uniquePath("quiz")
            let session = directory + "/session.json"
            let keyFile = server.dataDirectory + "/admin.key"
            let file = quizApp.appendingPathComponent("data/quizzes.json").path
            var (status, text) = try await Self.run(
                ["import", file, "--admin-key-file", keyFile], server: server, session: session)
            #expect(status == 0 && text.contains("12 created, 0 updated, 0 unchanged"), "\(text)")
            (status, text) = try await Self.run(
                ["import", file, "--admin-key-file", keyFile, "--update"], server: server, session: session)
            #expect(status == 0 && text.contains("0 created, 0 updated, 12 unchanged"), "\(text)")

            (status, text) = try await Self.run(["list"], server: server, session: session, language: "ja_JP.UTF-8")
            #expect(status == 0 && text.contains("都道府県の面積ランキング"), "\(text)")

            // Seed 42 shows ranks 8, 7, 6, 5: choice 2 is the 7th.
            #expect(QuizRules.choiceOrder(seed: 42) == [8, 7, 6, 5])
            (status, text) = try await Self.run(
                ["play", "1", "--seed", "42"], server: server, session: session, input: "2\n", language: "ja_JP.UTF-8")
            #expect(status == 0, "\(text)")
            #expect(text.contains("第7位は？") && text.contains("1) 青森県") && text.contains("2) 岐阜県"), "\(text)")
            #expect(text.contains("正解！") && text.contains("10位 鹿児島県  (9,186 km²)"), "\(text)")
            #expect(text.contains("7位  岐阜県  (10,621 km²)  ← あなたの答え ★ 正解"), "\(text)")
            #expect(text.contains("この端末に保存しました"), "signed out: kept locally")

            // Signing up takes the answer along.
            (status, text) = try await Self.run(
                ["signup", uniqueEmail(), "secret-pw", "Quizzer"], server: server, session: session)
            #expect(status == 0 && text.contains("1 answer(s) played signed out joined your account"), "\(text)")
            (status, text) = try await Self.run(
                ["play", "2", "--seed", "42"], server: server, session: session, input: "x\n1\n")
            #expect(status == 0 && text.contains("Not quite!") && text.contains("Your score is saved."), "\(text)")
            (status, text) = try await Self.run(["whoami"], server: server, session: session)
            #expect(text.contains("(1 of 2 correct)"), "\(text)")
            (status, text) = try await Self.run(["leaderboard"], server: server, session: session)
            #expect(text.contains("#1 Quizzer (you)  1 of 2 correct"), "\(text)")
            (status, text) = try await Self.run(["show", "2"], server: server, session: session)
            #expect(text.contains("#7") && text.contains("Hyogo") && !text.contains("your answer"), "\(text)")

            (status, text) = try await Self.run(["seed-json", "5"], server: server, session: session)
            let row = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]
            #expect(row?["7th"] == "宍道湖" && row?["data1"] == "669.26 km²" && row?["id"] == "5")
        }
    }
}
