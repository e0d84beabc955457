import Foundation
import KuraClient
import KuraQuiz
import KuraServer
import KuraServerTestSupport
import KuraTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// apps/quiz in this checkout.
let quizApp = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("apps/quiz")

/// The quiz's rules section (apps/quiz/quiz.rules) as a whole rules file, plus each user's own subtree.
func quizRules() throws -> String {
    let section = try String(contentsOf: quizApp.appendingPathComponent("quiz.rules"), encoding: .utf8)
    return """
        rules_version = '1';
        match /users/{uid}/{rest=**} {
          allow read, write: if request.auth != null && request.auth.uid == uid;
        }
        \(section)
        """
}

/// Runs `body` against a fresh server with the quiz's rules, and removes it afterwards.
func withQuizServer<T>(_ body: (TestKura) async throws -> T) async throws -> T {
    try await withTestKura(rules: try quizRules(), configure: { $0.useSDKTestSettings() }, body)
}

/// A client of `server` with nothing persisted.
func client(_ server: TestKura) -> Kura { Kura(url: server.url, settings: .init(session: .memory)) }

/// A new address per test.
func uniqueEmail(_ name: String = "player") -> String {
    "\(name)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
}

/// The quizzes of apps/quiz/data/quizzes.json.
func shippedQuizzes() throws -> [Quiz] {
    try QuizFile.decode(try Data(contentsOf: quizApp.appendingPathComponent("data/quizzes.json")))
}
