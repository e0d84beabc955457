import Foundation
import KuraClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Puts quizzes into `quizzes/{id}` idempotently: missing ones are created with 0 plays; with `update`, ones whose
/// content differs are rewritten keeping their plays; the rest are left alone, so a second run changes nothing.
public struct QuizImport: Sendable {
    public let admin: AdminREST

    public init(admin: AdminREST) { self.admin = admin }

    /// What a run did.
    public struct Summary: Sendable, Equatable {
        public var created = 0
        public var updated = 0
        public var unchanged = 0

        public init(created: Int = 0, updated: Int = 0, unchanged: Int = 0) {
            self.created = created
            self.updated = updated
            self.unchanged = unchanged
        }
    }

    public func run(_ quizzes: [Quiz], update: Bool) async throws -> Summary {
        var summary = Summary()
        for var quiz in quizzes {
            let path = "quizzes/\(quiz.id)"
            guard let stored = try await admin.get(path) else {
                quiz.plays = 0
                // `exists=false`: a quiz created meanwhile (in the app) is not overwritten.
                try await admin.put(path, quiz.fields, query: "exists=false")
                summary.created += 1
                continue
            }
            let current = Quiz(id: quiz.id, fields: stored)
            quiz.plays = current?.plays ?? 0
            if current == quiz || !update {
                summary.unchanged += 1
            } else {
                try await admin.put(path, quiz.fields, query: nil)
                summary.updated += 1
            }
        }
        return summary
    }
}

/// The document endpoints with the admin key (`Authorization: Bearer <admin.key>`), which bypasses the rules: for
/// imports and tools, never for an app's users.
public struct AdminREST: Sendable {
    public let server: URL
    let key: String

    public init(server: URL, key: String) {
        self.server = server
        self.key = key
    }

    /// The document's data, or `nil` when it does not exist.
    public func get(_ path: String) async throws -> DocumentData? {
        let (status, body) = try await send("GET", path, query: nil, body: nil)
        if status == 404 { return nil }
        guard status == 200, let object = body as? [String: Any], let data = object["data"] as? [String: Any] else {
            throw KuraError(.invalidResponse, "GET \(path) answered \(status)")
        }
        return try DocumentData(bridging: data)
    }

    /// Creates or replaces the document.
    public func put(_ path: String, _ data: DocumentData, query: String?) async throws {
        let body = try JSONEncoder().encode(["data": KuraValue.map(data)])
        let (status, answer) = try await send("PUT", path, query: query, body: body)
        guard status == 200 || status == 201 else {
            let error = (answer as? [String: Any])?["error"] as? [String: Any]
            throw KuraError(.invalidResponse, "PUT \(path) answered \(status): \(error?["message"] ?? "")")
        }
    }

    private func send(_ method: String, _ path: String, query: String?, body: Data?) async throws -> (Int, Any?) {
        let encoded = path.split(separator: "/").map {
            $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? String($0)
        }.joined(separator: "/")
        var text = server.absoluteString
        if text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text + "/api/docs/" + encoded + (query.map { "?" + $0 } ?? "")) else {
            throw KuraError(.invalidArgument, "bad path \(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer " + key, forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, data.isEmpty ? nil : try? JSONSerialization.jsonObject(with: data))
    }
}
