import Foundation
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

// Helpers for the security-rules tests (Rules*Tests.swift): servers with given rules, users, and documents.

/// A server with accounts (cheap hashing, no rate limits) whose `<data>/kura.rules` holds `rules` before it
/// starts (the default rules when `nil`); `configure` adjusts the rest.
func withRulesKura<T>(
    rules: String? = nil, configure: (inout KuraConfiguration) throws -> Void = { _ in },
    _ body: (TestKura) throws -> T
) throws -> T {
    try withAuthKura(rules: rules, configure: configure, body)
}

/// `<data>/kura.rules`.
func rulesPath(_ dataDirectory: String) -> String { dataDirectory + "/kura.rules" }

extension TestKura {
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
    expectError(response, 403, .permissionDenied, sourceLocation: sourceLocation)
    #expect(!response.body.contains(secret), "\(response)", sourceLocation: sourceLocation)
}
