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

/// Runs blocking work (starting or stopping an in-process node) on a thread of its own, never on Swift's
/// cooperative pool, whose few threads the other tests' awaits need.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}

/// Runs `body` against a fresh server with the quiz's rules, and removes it afterwards.
func withQuizServer<T>(_ body: (TestKura) async throws -> T) async throws -> T {
    let rules = try quizRules()
    let server = try await offPool {
        try TestKura(rules: rules) { configuration in
            configuration.http.workerThreads = 4
            configuration.logLevel = .error
            configuration.auth = .lowCostForTesting
            configuration.auth.rateLimits.enabled = false
        }
    }
    do {
        let result = try await body(server)
        _ = try? await offPool { server.shutdown() }
        return result
    } catch {
        _ = try? await offPool { server.shutdown() }
        throw error
    }
}

extension TestKura {
    /// An admin-key request through URLSession: the status and the parsed JSON body.
    func admin(_ method: String, _ path: String, json: Any? = nil) async throws -> (status: Int, body: Any?) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.setValue("Bearer \(adminKey)", forHTTPHeaderField: "Authorization")
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, data.isEmpty ? nil : try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
    }
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
