import Foundation
import KuraQuiz
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// `kura-quiz` end to end: the built executable against an in-process server.
@Suite struct QuizCommandLineTests {
    static let command = AppCommand("kura-quiz")

    /// Runs `kura-quiz` (`AppCommand.run`).
    static func run(
        _ arguments: [String], server: TestKura?, session: String, input: String = "", language: String = "C"
    ) async throws -> (Int32, String) {
        try await command.run(arguments, server: server, session: session, input: input, language: language)
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
