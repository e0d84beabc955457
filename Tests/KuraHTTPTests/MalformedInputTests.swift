import KuraHTTP
import KuraTestSupport
import Testing

/// One hostile or broken input and what the server must do with it.
struct MalformedCase: Sendable, CustomTestStringConvertible {
    enum After: Sendable {
        /// Send and wait (the request timeout is 300 ms in these tests).
        case wait
        /// Send, then half-close the socket.
        case closeWrite
    }

    enum Expect: Sendable {
        /// A 4xx status line with this JSON error code, then close.
        case reject(Int, String)
        /// No response, just a close.
        case cleanClose
    }

    let name: String
    let bytes: [UInt8]
    var after = After.wait
    let expect: Expect
    var testDescription: String { name }

    init(_ name: String, _ text: String, after: After = .wait, _ expect: Expect) {
        self.name = name
        self.bytes = Array(text.utf8)
        self.after = after
        self.expect = expect
    }

    init(_ name: String, bytes: [UInt8], _ expect: Expect) {
        self.name = name
        self.bytes = bytes
        self.expect = expect
    }
}

private let malformed = MalformedCase.Expect.reject(400, "MALFORMED_REQUEST")
private let post = "POST /sink HTTP/1.1\r\nHost: t\r\n"

@Suite struct MalformedInputTests {
    static let corpus: [MalformedCase] = [
        // The client gives up half-way through the request line: there is no request to answer, and the client
        // has said it will send nothing more, so the server just closes (http-parser never sees a whole message).
        MalformedCase("truncated request line, then close", "GET /api/hea", after: .closeWrite, .cleanClose),
        MalformedCase("truncated request line, then silence", "GET /api/hea", .reject(408, "REQUEST_TIMEOUT")),
        MalformedCase(
            "truncated headers, then silence", "GET /api/health HTTP/1.1\r\nHost: t\r\nX-A",
            .reject(408, "REQUEST_TIMEOUT")),
        MalformedCase(
            "body shorter than Content-Length", "\(post)Content-Length: 10\r\n\r\nabc", .reject(408, "REQUEST_TIMEOUT")),
        MalformedCase("chunk size zz", "\(post)Transfer-Encoding: chunked\r\n\r\nzz\r\nhi\r\n0\r\n\r\n", malformed),
        MalformedCase(
            "negative chunk size", "\(post)Transfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n", malformed),
        MalformedCase(
            "overflowing chunk size",
            "\(post)Transfer-Encoding: chunked\r\n\r\nfffffffffffffffffff\r\nhello\r\n0\r\n\r\n",
            malformed),
        MalformedCase(
            "header block over 16 KiB",
            "GET /api/health HTTP/1.1\r\nHost: t\r\nX-Huge: \(String(repeating: "x", count: 17 * 1024))\r\n\r\n",
            .reject(431, "HEADERS_TOO_LARGE")),
        MalformedCase(
            "20 000 tiny headers",
            "GET /api/health HTTP/1.1\r\nHost: t\r\n" + String(repeating: "A: b\r\n", count: 20_000) + "\r\n",
            .reject(431, "HEADERS_TOO_LARGE")),
        MalformedCase(
            "NUL in the request target",
            bytes: Array("GET /api/".utf8) + [0] + Array("health HTTP/1.1\r\nHost: t\r\n\r\n".utf8), malformed),
        MalformedCase(
            "NUL in the method",
            bytes: Array("GE".utf8) + [0] + Array("T /api/health HTTP/1.1\r\nHost: t\r\n\r\n".utf8), malformed),
        MalformedCase(
            "NUL in a header name",
            bytes: Array("GET /api/health HTTP/1.1\r\nHost: t\r\nX-A".utf8) + [0] + Array("b: 1\r\n\r\n".utf8),
            malformed),
        // Replacing bad bytes with U+FFFD would silently turn one ID or value into another.
        MalformedCase(
            "invalid UTF-8 in the request target",
            bytes: Array("GET /api/docs/notes/".utf8) + [0xFF, 0xFE] + Array(" HTTP/1.1\r\nHost: t\r\n\r\n".utf8),
            malformed),
        MalformedCase(
            "invalid UTF-8 in a header value",
            bytes: Array("GET /api/health HTTP/1.1\r\nHost: t\r\nX-Name: ".utf8) + [0xC3, 0x28]
                + Array("\r\n\r\n".utf8),
            malformed),
        MalformedCase("method G@T", "G@T /api/health HTTP/1.1\r\nHost: t\r\n\r\n", malformed),
        MalformedCase("lower-case method get", "get /api/health HTTP/1.1\r\nHost: t\r\n\r\n", malformed),
        MalformedCase("HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", malformed),
        MalformedCase("space inside the target", "GET /api/he alth HTTP/1.1\r\nHost: t\r\n\r\n", malformed),
        MalformedCase(
            "Content-Length and Transfer-Encoding",
            "\(post)Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: t\r\n\r\n",
            malformed),
        MalformedCase(
            "Transfer-Encoding: chunked, identity", "\(post)Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n",
            malformed),
        MalformedCase(
            "two Transfer-Encoding fields",
            "\(post)Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n0\r\n\r\n",
            malformed),
        MalformedCase(
            "differing duplicate Content-Length", "\(post)Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
            malformed),
        MalformedCase("Content-Length list", "\(post)Content-Length: 5, 6\r\n\r\nhello!", malformed),
        MalformedCase("negative Content-Length", "\(post)Content-Length: -1\r\n\r\n", malformed),
        // RFC 9112 §5.1: whitespace between a field name and the colon MUST be rejected with 400; a proxy that
        // strips it and a server that does not disagree on where the body ends.
        MalformedCase("space before the colon", "\(post)Content-Length : 5\r\n\r\nhello", malformed),
        // RFC 9112 §5.2 lets a server reject obs-fold or replace it with spaces; Kura's contract is to reject.
        MalformedCase(
            "obs-fold continuation line", "GET /api/health HTTP/1.1\r\nHost: t\r\nX-Folded: a\r\n b\r\n\r\n", malformed),
        MalformedCase(
            "obs-fold hiding Transfer-Encoding", "\(post)Transfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n", malformed),
        // RFC 9112 §3.2: a request with more than one Host field MUST get 400.
        MalformedCase("two Host fields", "GET /api/health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", malformed),
        MalformedCase(
            "two Authorization fields",
            "GET /api/health HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer a\r\nauthorization: Bearer b\r\n\r\n",
            malformed),
        MalformedCase("bare CR line ends", "GET /api/health HTTP/1.1\rHost: t\r\r", malformed),
        // RFC 9112 §2.2 allows accepting a bare LF; Kura's contract (strict, like the smuggling cases) rejects it.
        MalformedCase("bare LF line ends", "GET /api/health HTTP/1.1\nHost: t\n\n", malformed),
        MalformedCase("missing Host on HTTP/1.1", "GET /api/health HTTP/1.1\r\n\r\n", malformed),
        MalformedCase(
            "header line without a colon", "GET /api/health HTTP/1.1\r\nHost: t\r\nNoColonHere\r\n\r\n", malformed),
    ]

    @Test("malformed input is refused with a JSON error, and the server keeps serving", arguments: corpus)
    func refused(_ input: MalformedCase) throws {
        try withTestHTTPServer(
            { $0.requestTimeoutMs = 300 },
            routes: { router in
                router.post("/sink") { _, _ in .noContent }
                router.get("/smuggled") { _, _ in .text("smuggled") }
            }
        ) { server in
            let client = try server.connect()
            try client.send(input.bytes)
            if case .closeWrite = input.after { client.shutdownWrite() }

            switch input.expect {
            case .reject(let status, let code):
                let response = try client.readResponse()
                try #require((400..<500).contains(response.status), "accepted: \(response.status) \(response.body)")
                #expect(response.status == status)
                #expect(response.errorCode == code, "body: \(response.body)")
                #expect(response.header("Connection") == "close")
                #expect(client.closes(within: .seconds(3)))
                #expect(client.pending.isEmpty, "nothing may follow the error response")
            case .cleanClose:
                #expect(client.closes(within: .seconds(3)))
                #expect(client.pending.isEmpty, "expected a close without a response")
            }
            #expect(server.stillServes())
        }
    }

    @Test("an Upgrade request (unsupported) is answered and the connection then serves or closes, not hangs")
    func upgradeDoesNotHang() throws {
        try withTestHTTPServer { server in
            let client = try server.connect()
            try client.send("GET /api/health HTTP/1.1\r\nHost: t\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
            #expect(try client.readResponse().status == 200)
            try? client.send("GET /api/health HTTP/1.1\r\nHost: t\r\n\r\n")
            // Either keep-alive carries on, or the server closes; a connection that neither reads nor closes is
            // a leak until the idle timeout.
            let next = try? client.readResponse(timeout: .seconds(1))
            #expect(next?.status == 200 || client.closes(within: .milliseconds(100)))
        }
    }
}
