import KuraCore
import KuraHTTP
import KuraModel
import KuraTestSupport
import Testing

/// Route matching as a plain value, and routing through `RouterHarness`: requests handed to the router on an
/// event loop, no socket, no server.
@Suite struct RouterTests {
    /// A router whose handlers answer with the pattern they were registered under, and the parameters they were
    /// given in `X-Parameters` (`name=value` pairs, sorted, `&`-joined).
    private static func router(_ routes: [(HTTPMethod, String)]) -> Router<BasicRequestContext> {
        let router = Router<BasicRequestContext>()
        for (method, pattern) in routes {
            router.on(method, pattern) { request, _ in
                var response = Response.text(pattern)
                let pairs = request.parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                response.headers.set("X-Parameters", pairs.joined(separator: "&"))
                return response
            }
        }
        return router
    }

    /// The pattern that answers `method path` through the router, and the parameters its handler got; nil if it
    /// answered anything but 200.
    private static func resolve(
        _ router: Router<BasicRequestContext>, _ method: HTTPMethod, _ path: String
    ) throws -> (pattern: String, parameters: [String: String])? {
        let harness = RouterHarness(responder: router)
        defer { harness.shutdown() }
        let response = try harness.request(method.description, path)
        guard response.status == 200 else { return nil }
        var parameters: [String: String] = [:]
        for pair in (response.header("X-Parameters") ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            parameters[String(parts[0])] = String(parts[1])
        }
        return (response.body, parameters)
    }

    private static let table = router([
        (.GET, "/api/docs/special"),
        (.GET, "/api/docs/:id"),
        (.GET, "/api/docs/:id/history"),
        (.GET, "/api/docs/*rest"),
        (.GET, "/files/*path"),
        (.POST, "/api/docs/:id"),
        (.GET, "/"),
    ])

    @Test(
        "literals win over parameters, parameters over wildcards",
        arguments: [
            ("/api/docs/special", "/api/docs/special", [:]),
            ("/api/docs/other", "/api/docs/:id", ["id": "other"]),
            ("/api/docs/abc/history", "/api/docs/:id/history", ["id": "abc"]),
            // No route has two segments after :id, so the wildcard takes the rest.
            ("/api/docs/abc/def", "/api/docs/*rest", ["rest": "abc/def"]),
            ("/api/docs/special/x/y", "/api/docs/*rest", ["rest": "special/x/y"]),
            ("/files/a/b/c.txt", "/files/*path", ["path": "a/b/c.txt"]),
            ("/files/one", "/files/*path", ["path": "one"]),
            ("/", "/", [:]),
        ] as [(String, String, [String: String])])
    func precedence(path: String, pattern: String, parameters: [String: String]) throws {
        let found = try #require(try Self.resolve(Self.table, .GET, path))
        #expect(found.pattern == pattern)
        #expect(found.parameters == parameters)
    }

    @Test("a pattern ending in a slash is its own route: /console/ and /console answer apart")
    func trailingSlash() throws {
        let router = Self.router([(.GET, "/console"), (.GET, "/console/"), (.GET, "/console/:file")])
        #expect(try Self.resolve(router, .GET, "/console")?.pattern == "/console")
        #expect(try Self.resolve(router, .GET, "/console/")?.pattern == "/console/")
        #expect(try Self.resolve(router, .GET, "/console/a.js")?.pattern == "/console/:file")
        let only = Self.router([(.GET, "/shelf/")])
        guard case .notFound = only.match(.GET, path: "/shelf"[...]) else {
            Issue.record("/shelf should not match /shelf/")
            return
        }
    }

    @Test("unknown paths are not found", arguments: ["/nope", "/api", "/api/docs", "/files", "/files/", "relative"])
    func notFound(path: String) {
        guard case .notFound = Self.table.match(.GET, path: path[...]) else {
            Issue.record("\(path) should not match")
            return
        }
    }

    @Test("an empty segment never fills a parameter")
    func emptyParameter() {
        // `/api/docs/` has an empty last segment; `:id` must not capture "", and the wildcard needs content.
        let router = Self.router([(.GET, "/api/docs/:id")])
        guard case .notFound = router.match(.GET, path: "/api/docs/") else {
            Issue.record("an empty segment matched :id")
            return
        }
    }

    @Test(
        "parameters are percent-decoded",
        arguments: [
            ("/api/docs/a%20b", "a b"),
            ("/api/docs/caf%C3%A9", "café"),
            ("/api/docs/a%2Ab", "a*b"),
            ("/api/docs/plus+stays", "plus+stays"),
        ])
    func percentDecoding(path: String, value: String) throws {
        let found = try #require(try Self.resolve(Self.table, .GET, path))
        #expect(found.pattern == "/api/docs/:id")
        #expect(found.parameters["id"] == value)
    }

    @Test("the wildcard capture is percent-decoded too")
    func wildcardDecoding() throws {
        let found = try #require(try Self.resolve(Self.table, .GET, "/files/dir%20one/f%41.txt"))
        #expect(found.parameters["path"] == "dir one/fA.txt")
    }

    @Test(
        "malformed percent-encoding is a bad path",
        arguments: ["/api/docs/%", "/api/docs/%4", "/api/docs/%zz", "/api/docs/%C3%28"])
    func badPercentEncoding(path: String) {
        guard case .badPath = Self.table.match(.GET, path: path[...]) else {
            Issue.record("\(path) should be a bad path, got \(Self.table.match(.GET, path: path[...]))")
            return
        }
    }

    @Test(
        "an encoded slash in a capture is a bad path, never a separator",
        arguments: ["/files/a%2Fb", "/files/a%2fb/c", "/api/docs/x%2F"])
    func encodedSlash(path: String) {
        guard case .badPath(let message) = Self.table.match(.GET, path: path[...]) else {
            Issue.record("\(path) should be a bad path, got \(Self.table.match(.GET, path: path[...]))")
            return
        }
        #expect(message.contains("%2F"))
    }

    @Test("a known path with another method is 405 with Allow, HEAD included when GET exists")
    func methodNotAllowed() throws {
        guard case .methodNotAllowed(let allow) = Self.table.match(.DELETE, path: "/api/docs/x") else {
            Issue.record("DELETE on a known path should be 405")
            return
        }
        #expect(allow == ["GET", "HEAD", "POST"])
        // And the answer the router makes of it: status, `Allow`, and the JSON error body.
        let harness = RouterHarness(responder: Self.table)
        defer { harness.shutdown() }
        let response = try harness.request("DELETE", "/api/docs/x")
        #expect(response.status == 405)
        #expect(response.header("Allow") == "GET, HEAD, POST")
        #expect(response.errorCode == "METHOD_NOT_ALLOWED")

        let postOnly = Self.router([(.POST, "/submit")])
        guard case .methodNotAllowed(let allowPost) = postOnly.match(.GET, path: "/submit") else {
            Issue.record("GET on a POST-only path should be 405")
            return
        }
        #expect(allowPost == ["POST"])
    }

    @Test("HEAD falls back to GET, but an explicit HEAD route wins")
    func headFallback() throws {
        let found = try #require(try Self.resolve(Self.table, .HEAD, "/api/docs/x"))
        #expect(found.pattern == "/api/docs/:id")
        #expect(found.parameters == ["id": "x"])

        let router = Router<BasicRequestContext>()
        router.get("/r") { _, _ in .text("get") }
        router.on(.HEAD, "/r") { _, _ in .text("head") }
        let head = try #require(try Self.resolve(router, .HEAD, "/r"))
        #expect(head.pattern == "head")
    }
}
