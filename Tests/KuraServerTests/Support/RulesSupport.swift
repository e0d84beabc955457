import Foundation
import KuraServer
import Testing

// Helpers for the security-rules tests (Rules*Tests.swift): servers with given rules, users, and documents.

/// A server with accounts (cheap hashing, no rate limits) whose `<data>/kura.rules` holds `rules` before it
/// starts (the default rules when `nil`); `configure` adjusts the rest.
func withRulesKura<T>(
    rules: String? = nil, configure: (inout KuraConfiguration) throws -> Void = { _ in },
    _ body: (TestKura) throws -> T
) throws -> T {
    try withAuthKura(
        configure: { configuration in
            if let rules {
                try FileManager.default.createDirectory(
                    atPath: configuration.dataDirectory, withIntermediateDirectories: true)
                try rules.write(toFile: rulesPath(configuration.dataDirectory), atomically: true, encoding: .utf8)
            }
            try configure(&configuration)
        }, body)
}

/// `<data>/kura.rules`.
func rulesPath(_ dataDirectory: String) -> String { dataDirectory + "/kura.rules" }

extension TestKura {
    /// A request as `session`'s user (its ID token), or anonymous when `session` is `nil`.
    func request(
        _ method: String, _ target: String, json: Any? = nil, headers: [(String, String)] = [], as session: Session?
    ) throws -> HTTPResponse {
        try request(method, target, json: json, headers: headers, auth: session.map { $0.bearer } ?? .none)
    }

    /// A signed-in user whose account has the `admin` custom claim (made directly, as `kura admin create-user
    /// --admin` does).
    func signUpAdmin(_ email: String) throws -> Session {
        _ = try kura.auth.createUser(email: email, password: "secret-pw", admin: true)
        return try signIn(email)
    }

    /// Writes `<data>/kura.rules` in place, as an editor would.
    func writeRulesFile(_ source: String) throws {
        try source.write(toFile: rulesPath(dataDirectory), atomically: false, encoding: .utf8)
    }

    /// The document IDs of `POST /api/query` with `body` as `session`, page after page of `limit`; fails on
    /// anything but 200 or when it takes more than `maxPages`.
    func queryAllPages(_ body: [String: Any], limit: Int, as session: Session?, maxPages: Int = 100) throws
        -> (ids: [String], pages: Int)
    {
        var ids: [String] = []
        var token: String? = nil
        var pages = 0
        repeat {
            var query = body
            query["limit"] = limit
            if let token { query["pageToken"] = token }
            let response = try request("POST", "/api/query", json: query, as: session)
            guard response.status == 200 else { throw UnexpectedResponse(response) }
            #expect(response.documentIDs.count <= limit)
            ids += response.documentIDs
            token = response.nextPageToken
            pages += 1
        } while token != nil && pages < maxPages
        return (ids, pages)
    }
}

/// Checks that `response` is 403 `PERMISSION_DENIED` and shows no trace of `secret`.
func expectDenied(
    _ response: HTTPResponse, hiding secret: String = "secret", sourceLocation: SourceLocation = #_sourceLocation
) {
    expectError(response, 403, "PERMISSION_DENIED", sourceLocation: sourceLocation)
    #expect(!response.body.contains(secret), "\(response)", sourceLocation: sourceLocation)
}

/// Polls `condition` every 20 ms for up to `seconds`; `true` once it holds.
func eventually(within seconds: Double = 5, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return try condition()
}
