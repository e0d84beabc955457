import KuraCore
import KuraHTTP
import KuraModel
import KuraTestSupport
import Testing

private func corsRoutes(_ router: Router<BasicRequestContext>) {
    router.put("/items/:id") { _, _ in .noContent }
    router.get("/missing") { _, _ in throw APIError.notFound("no such item") }
    router.get("/later") { _, _ in .later { promise in promise.succeed(.text("later")) } }
}

private func narrowed(_ configuration: inout HTTPServerConfiguration) {
    configuration.cors = CORSPolicy(origins: .only(["https://app.example"]), maxAgeSeconds: 600)
}

@Suite struct CORSTests {
    @Test("with the default policy every response allows any origin and exposes the request id")
    func anyOrigin() throws {
        try withTestHTTPServer(routes: corsRoutes) { server in
            for path in ["/api/health", "/missing", "/later", "/no-such-route"] {
                let response = try server.get(path, headers: "Origin: https://elsewhere.example\r\n")
                #expect(response.header("Access-Control-Allow-Origin") == "*", "\(path)")
                #expect(response.header("Access-Control-Expose-Headers") == "X-Request-Id, Retry-After, ETag")
                #expect(response.header("Vary") == nil)
            }
        }
    }

    @Test("a preflight is answered 204 by the engine, for any path, with methods, headers and max age")
    func preflight() throws {
        try withTestHTTPServer({ $0.cors.maxAgeSeconds = 1234 }, routes: corsRoutes) { server in
            let response = try server.exchange(
                "OPTIONS /items/7 HTTP/1.1\r\nHost: t\r\nOrigin: https://elsewhere.example\r\n"
                    + "Access-Control-Request-Method: PUT\r\n"
                    + "Access-Control-Request-Headers: authorization, content-type\r\n\r\n")
            #expect(response.status == 204)
            #expect(response.header("Access-Control-Allow-Origin") == "*")
            #expect(response.header("Access-Control-Allow-Methods")?.contains("PUT") == true)
            let allowed = response.header("Access-Control-Allow-Headers") ?? ""
            for name in ["Authorization", "Content-Type", "Last-Event-ID", "X-Request-Id"] {
                #expect(allowed.contains(name), "\(name)")
            }
            #expect(response.header("Access-Control-Max-Age") == "1234")
        }
    }

    @Test("an OPTIONS request that is not a preflight is routed as usual")
    func plainOptions() throws {
        try withTestHTTPServer(routes: corsRoutes) { server in
            let response = try server.exchange("OPTIONS /items/7 HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(response.status == 405)
        }
    }

    @Test("a narrowed policy echoes a listed origin with Vary: Origin and gives others no CORS headers")
    func narrowedOrigins() throws {
        try withTestHTTPServer(narrowed, routes: corsRoutes) { server in
            let allowed = try server.get("/missing", headers: "Origin: https://app.example\r\n")
            #expect(allowed.status == 404)
            #expect(allowed.header("Access-Control-Allow-Origin") == "https://app.example")
            #expect(allowed.header("Access-Control-Expose-Headers")?.contains("X-Request-Id") == true)
            #expect(allowed.header("Vary") == "Origin")

            let refused = try server.get("/api/health", headers: "Origin: https://evil.example\r\n")
            #expect(refused.status == 200)
            #expect(refused.header("Access-Control-Allow-Origin") == nil)
            #expect(refused.header("Access-Control-Expose-Headers") == nil)
            #expect(refused.header("Vary") == "Origin")
        }
    }

    @Test("a narrowed policy refuses the preflight of an unlisted origin without CORS headers")
    func refusedPreflight() throws {
        try withTestHTTPServer(narrowed, routes: corsRoutes) { server in
            let preflight = { (origin: String) in
                try server.exchange(
                    "OPTIONS /items/7 HTTP/1.1\r\nHost: t\r\nOrigin: \(origin)\r\n"
                        + "Access-Control-Request-Method: PUT\r\n\r\n")
            }
            let refused = try preflight("https://evil.example")
            #expect(refused.status == 403)
            #expect(refused.errorCode == "ORIGIN_NOT_ALLOWED")
            #expect(refused.header("Access-Control-Allow-Origin") == nil)
            #expect(refused.header("Access-Control-Allow-Methods") == nil)

            let allowed = try preflight("https://app.example")
            #expect(allowed.status == 204)
            #expect(allowed.header("Access-Control-Allow-Origin") == "https://app.example")
            #expect(allowed.header("Access-Control-Max-Age") == "600")
        }
    }

    @Test("requests the engine refuses itself carry the CORS headers too")
    func engineRefusals() throws {
        try withTestHTTPServer({ $0.limits.maxHeaderBytes = 256 }, routes: corsRoutes) { server in
            let padding = String(repeating: "x", count: 400)
            let response = try server.get("/api/health", headers: "Origin: https://a.example\r\nX-Pad: \(padding)\r\n")
            #expect(response.status == 431)
            #expect(response.header("Access-Control-Allow-Origin") == "*")
        }
    }

    @Test(
        "cors.origins parses * and lists, and rejects what is not an origin",
        arguments: [
            ("*", CORSPolicy.Origins.any),
            ("https://a.example, http://localhost:5173", .only(["https://a.example", "http://localhost:5173"])),
            ("HTTPS://A.example", .only(["https://a.example"])),
            ("", .only([])),
        ])
    func parsing(text: String, expected: CORSPolicy.Origins) throws {
        #expect(try CORSPolicy.parseOrigins(text) == expected)
    }

    @Test(
        "cors.origins rejects paths, bare hosts and * inside a list",
        arguments: ["https://a.example/", "a.example", "*, https://a.example"])
    func parsingErrors(text: String) {
        #expect(throws: CORSPolicyError.self) { try CORSPolicy.parseOrigins(text) }
    }
}
