import Foundation
import KuraCore
import KuraHTTP
import KuraModel
import KuraTestSupport
import Testing

/// An error that is not a `APIError`, to check that its details stay out of the response.
private struct SecretFailure: Error { let detail = "database password is hunter2" }

/// Routes shared by the protocol tests.
private func protocolRoutes(_ router: Router<BasicRequestContext>) {
    router.get("/hello") { _, _ in .text("hello world") }
    router.get("/item/:id") { request, _ in .text("item \(try request.parameter("id"))") }
    router.post("/echo") { request, _ in
        Response(status: 200, headers: ["Content-Type": "application/octet-stream"], body: request.body)
    }
    router.get("/boom") { _, _ in throw SecretFailure() }
    router.get("/whoami") { request, _ in .text(request.remoteAddress) }
    router.get("/teapot") { _, _ in
        throw APIError(ErrorCode(rawValue: "TEAPOT"), status: 418, message: "short and stout")
    }
    // Answers after `ms` milliseconds from another thread, through the deferred-response promise.
    router.get("/later/:ms") { request, _ in
        let millis = UInt32(try request.parameter("ms")) ?? 0
        return .later { promise in
            Thread.detachNewThread {
                usleep(millis * 1000)
                promise.succeed(.text("later \(millis)"))
            }
        }
    }
}

@Suite struct ServerProtocolTests {
    @Test("handlers see the client's IP address")
    func remoteAddress() throws {
        try withTestHTTPServer(routes: protocolRoutes) { server in
            let response = try server.get("/whoami")
            #expect(response.body == "127.0.0.1")
        }
    }

    @Test("several requests share one keep-alive connection")
    func keepAlive() throws {
        try withTestHTTPServer(routes: protocolRoutes) { server in
            let client = try server.connect()
            for i in 0..<5 {
                try client.send("GET /item/\(i) HTTP/1.1\r\nHost: t\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.status == 200)
                #expect(response.body == "item \(i)")
                #expect(response.header("Connection") == nil)
            }
            #expect(!client.closes(within: .milliseconds(50)))
        }
    }

    @Test("pipelined requests are answered in order, even when the first one is answered last")
    func pipelining() throws {
        try withTestHTTPServer(routes: protocolRoutes) { server in
            let client = try server.connect()
            try client.send(
                "GET /later/300 HTTP/1.1\r\nHost: t\r\n\r\n"
                    + "GET /item/a HTTP/1.1\r\nHost: t\r\n\r\n"
                    + "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n\r\nping"
                    + "GET /later/0 HTTP/1.1\r\nHost: t\r\n\r\n"
                    + "GET /item/b HTTP/1.1\r\nHost: t\r\n\r\n")
            let bodies = try (0..<5).map { _ in try client.readResponse().body }
            #expect(bodies == ["later 300", "item a", "ping", "later 0", "item b"])
        }
    }

    @Test("a client that half-closes in the middle of a request still gets the answers to the requests before it")
    func halfCloseInsideARequest() throws {
        try withTestHTTPServer(routes: protocolRoutes) { server in
            let client = try server.connect()
            try client.send(
                "GET /later/200 HTTP/1.1\r\nHost: t\r\n\r\n" + "GET /item/a HTTP/1.1\r\nHost: t\r\n\r\n"
                    + "GET /item/never HTTP/1.1\r\nHo")
            client.shutdownWrite()
            let bodies = try (0..<2).map { _ in try client.readResponse().body }
            #expect(bodies == ["later 200", "item a"])
            #expect(client.closes(within: .seconds(10)))
        }
    }

    @Test("an HTTP/1.0 request without keep-alive is answered and the connection closed")
    func http10() throws {
        try withTestHTTPServer(routes: protocolRoutes) { server in
            let client = try server.connect()
            try client.send("GET /hello HTTP/1.0\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.httpVersion == "HTTP/1.0")
            #expect(response.body == "hello world")
            #expect(client.closes(within: .seconds(2)))
        }
    }

    @Test("Connection: close is honoured after the response")
    func connectionClose() throws {
        try withTestHTTPServer(routes: protocolRoutes) { server in
            let client = try server.connect()
            try client.send("GET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.header("Connection") == "close")
            #expect(client.closes(within: .seconds(2)))
        }
    }

    @Test("a chunked request body reaches the handler whole")
    func chunkedEcho() throws {
        try withTestHTTPServer(routes: protocolRoutes) { server in
            let client = try server.connect()
            try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
            try client.send("4\r\nKura\r\n")
            try client.send("1\r\n \r\nb\r\nchunk body!\r\n0\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.body == "Kura chunk body!")
            #expect(response.header("Content-Length") == "16")
        }
    }

    @Test("HEAD gets GET's headers and Content-Length but no body")
    func head() throws {
        try withTestHTTPServer(routes: protocolRoutes) { server in
            let client = try server.connect()
            // The GET right behind would be misread if any body byte followed the HEAD response.
            try client.send("HEAD /hello HTTP/1.1\r\nHost: t\r\n\r\nGET /item/after HTTP/1.1\r\nHost: t\r\n\r\n")
            let head = try client.readResponse(head: true)
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "11")
            #expect(head.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(client.pending.isEmpty || client.pending.starts(with: Array("HTTP/1.1 200".utf8)))
            let next = try client.readResponse()
            #expect(next.body == "item after")
        }
    }

    @Test("Expect: 100-continue gets an interim 100 before the body is sent")
    func expectContinue() throws {
        try withTestHTTPServer(routes: protocolRoutes) { server in
            let client = try server.connect()
            try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            let interim = try client.readResponse()
            #expect(interim.status == 100)
            try client.send("fives")
            let final = try client.readResponse()
            #expect(final.status == 200)
            #expect(final.body == "fives")
        }
    }

    @Test("Expect: 100-continue with a body over the limit gets 413 and no 100")
    func expectContinueTooLarge() throws {
        try withTestHTTPServer({ $0.limits.maxBodyBytes = 100 }, routes: protocolRoutes) { server in
            let client = try server.connect()
            try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 413)
            #expect(response.errorCode == "PAYLOAD_TOO_LARGE")
        }
    }

    @Test("every response carries Date and a generated X-Request-Id")
    func standardHeaders() throws {
        try withTestHTTPServer(routes: protocolRoutes) { server in
            let client = try server.connect()
            var ids: [String] = []
            for path in ["/hello", "/missing"] {
                try client.send("GET \(path) HTTP/1.1\r\nHost: t\r\n\r\n")
                let response = try client.readResponse()
                let date = try #require(response.header("Date"))
                #expect(date.hasSuffix(" GMT"))
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = TimeZone(identifier: "GMT")
                formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
                let parsed = try #require(formatter.date(from: date), "Date '\(date)' is not an IMF-fixdate")
                #expect(abs(parsed.timeIntervalSinceNow) < 5)
                ids.append(try #require(response.header("X-Request-Id")))
            }
            #expect(ids.allSatisfy { !$0.isEmpty })
            #expect(Set(ids).count == 2)
        }
    }

    @Test(
        "a sane client X-Request-Id is echoed; anything else is replaced",
        arguments: [
            ("abc-123_X.y", true),
            (String(repeating: "a", count: 64), true),
            (String(repeating: "a", count: 65), false),
            ("has space", false),
            ("quote\"", false),
            ("ünicode", false),
        ])
    func requestIDEcho(id: String, echoed: Bool) throws {
        try withTestHTTPServer(routes: protocolRoutes) { server in
            let response = try server.get("/hello", headers: "X-Request-Id: \(id)\r\n")
            #expect(response.status == 200)
            let sent = try #require(response.header("X-Request-Id"))
            #expect((sent == id) == echoed)
            #expect(!sent.isEmpty)
        }
    }

    @Test("unknown routes are 404 NOT_FOUND; known paths with another method 405 with Allow")
    func routingErrors() throws {
        try withTestHTTPServer(routes: protocolRoutes) { server in
            let missing = try server.get("/nothing/here")
            #expect(missing.status == 404)
            #expect(missing.errorCode == "NOT_FOUND")
            #expect(missing.header("Content-Type") == "application/json")

            let wrong = try server.exchange("DELETE /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(wrong.status == 405)
            #expect(wrong.errorCode == "METHOD_NOT_ALLOWED")
            #expect(wrong.header("Allow") == "GET, HEAD")

            let badPath = try server.get("/item/%zz")
            #expect(badPath.status == 400)
            #expect(badPath.errorCode == "INVALID_PATH")
        }
    }

    @Test("a thrown APIError keeps its status, code and message")
    func kuraError() throws {
        try withTestHTTPServer(routes: protocolRoutes) { server in
            let response = try server.get("/teapot")
            #expect(response.status == 418)
            #expect(response.errorCode == "TEAPOT")
            #expect(response.errorMessage == "short and stout")
        }
    }

    @Test("any other thrown error is an opaque 500 INTERNAL naming only the request id")
    func internalError() throws {
        try withTestHTTPServer(routes: protocolRoutes) { server in
            let response = try server.get("/boom", headers: "X-Request-Id: boom-1\r\n")
            #expect(response.status == 500)
            #expect(response.errorCode == "INTERNAL")
            let message = try #require(response.errorMessage)
            #expect(message.contains("boom-1"))
            #expect(!response.body.contains("hunter2"))
            #expect(!response.body.contains("SecretFailure"))

            // With a generated id, the message names that one.
            let generated = try server.get("/boom")
            let id = try #require(generated.header("X-Request-Id"))
            #expect(generated.errorMessage?.contains(id) == true)
            #expect(server.stillServes())
        }
    }
}
