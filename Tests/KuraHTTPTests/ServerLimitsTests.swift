import Foundation
import KuraHTTP
import KuraTestSupport
import Testing

/// One request that breaks a limit, and what the server must answer.
struct LimitCase: Sendable, CustomTestStringConvertible {
    let name: String
    let request: String
    let status: Int
    let code: String
    var testDescription: String { name }
}

private let bigHeader = "X-Big: " + String(repeating: "h", count: 20 * 1024) + "\r\n"
private let kilobyteChunk = "400\r\n" + String(repeating: "c", count: 1024) + "\r\n"

@Suite struct ServerLimitsTests {
    static let cases: [LimitCase] = [
        LimitCase(
            name: "header block over 16 KiB", request: "GET /api/health HTTP/1.1\r\nHost: t\r\n\(bigHeader)\r\n",
            status: 431, code: "HEADERS_TOO_LARGE"),
        // Headers only: the 413 must come without the server waiting for the body.
        LimitCase(
            name: "declared Content-Length over maxBodyBytes",
            request: "POST /sink HTTP/1.1\r\nHost: t\r\nContent-Length: 1025\r\n\r\n", status: 413,
            code: "PAYLOAD_TOO_LARGE"),
        LimitCase(
            name: "chunked body over maxBodyBytes",
            request:
                "POST /sink HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n\(kilobyteChunk)\(kilobyteChunk)",
            status: 413, code: "PAYLOAD_TOO_LARGE"),
        LimitCase(
            name: "garbage request line", request: "HELLO THERE\r\n\r\n", status: 400, code: "MALFORMED_REQUEST"),
        LimitCase(
            name: "bad chunk size",
            request: "POST /sink HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhi\r\n0\r\n\r\n",
            status: 400, code: "MALFORMED_REQUEST"),
        LimitCase(
            name: "Content-Length and Transfer-Encoding",
            request:
                "POST /sink HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
            status: 400, code: "MALFORMED_REQUEST"),
        LimitCase(
            name: "HTTP/1.1 without Host", request: "GET /api/health HTTP/1.1\r\n\r\n", status: 400,
            code: "MALFORMED_REQUEST"),
    ]

    @Test("each limit is answered with its status and JSON code, then the connection closes", arguments: cases)
    func limit(_ limit: LimitCase) throws {
        try withTestHTTPServer({ $0.limits.maxBodyBytes = 1024 }, routes: { $0.post("/sink") { _, _ in .noContent } }) {
            server in
            let client = try server.connect()
            try client.send(limit.request)
            let response = try client.readResponse()
            #expect(response.status == limit.status)
            #expect(response.errorCode == limit.code)
            #expect(response.errorMessage?.isEmpty == false)
            #expect(response.header("Connection") == "close")
            #expect(response.header("X-Request-Id") != nil)
            #expect(client.closes(within: .seconds(3)))
            #expect(server.stillServes())
        }
    }

    @Test("a slowloris client sending headers byte by byte gets 408 and is disconnected")
    func slowloris() throws {
        try withTestHTTPServer({ $0.requestTimeoutMs = 300 }) { server in
            let client = try server.connect()
            let drip = Array(
                "GET /api/health HTTP/1.1\r\nHost: t\r\nX-Slow: \(String(repeating: "s", count: 200))".utf8)
            let start = ContinuousClock.now
            for byte in drip {
                // A send may fail once the server has given up; what it answered is what matters.
                guard (try? client.send([byte])) != nil else { break }
                client.receiveMore(timeout: .milliseconds(20))
                if client.peerClosed || client.pending.firstRange(of: Array("\r\n\r\n".utf8)) != nil { break }
            }
            let response = try client.readResponse()
            let elapsed = ContinuousClock.now - start
            #expect(response.status == 408)
            #expect(response.errorCode == "REQUEST_TIMEOUT")
            #expect(elapsed >= .milliseconds(250), "408 came after \(elapsed), before the 300 ms timeout")
            #expect(elapsed < .milliseconds(1500), "408 came only after \(elapsed)")
            #expect(client.closes(within: .seconds(3)))
            #expect(server.stillServes())
        }
    }

    @Test("an idle keep-alive connection is closed after idleTimeoutMs, and not before")
    func idleTimeout() throws {
        try withTestHTTPServer({ $0.idleTimeoutMs = 200 }) { server in
            let client = try server.connect()
            try client.send("GET /api/health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().status == 200)
            let start = ContinuousClock.now
            #expect(client.closes(within: .seconds(3)))
            let elapsed = ContinuousClock.now - start
            #expect(elapsed >= .milliseconds(120), "closed after only \(elapsed)")
            #expect(client.pending.isEmpty, "an idle close sends nothing")
            #expect(server.stillServes())
        }
    }

    @Test("a slow response is not cut off by the idle timeout")
    func busyIsNotIdle() throws {
        try withTestHTTPServer(
            { $0.idleTimeoutMs = 150 },
            routes: { router in
                router.get("/slow") { _, context in
                    context.environment.offload {
                        usleep(400_000)
                        return .text("done")
                    }
                }
            }
        ) { server in
            let client = try server.connect()
            try client.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.body == "done")
        }
    }

    @Test("with the worker queue full: 503 UNAVAILABLE with Retry-After, and served again once it drains")
    func workerQueueFull() throws {
        let release = Signal()
        try withTestHTTPServer(
            {
                $0.workerThreads = 1; $0.workerQueueLimit = 2
            },
            routes: { router in
                router.get("/hold") { _, context in
                    context.environment.offload {
                        _ = release.wait(timeout: 30)
                        return .text("held")
                    }
                }
            }
        ) { server in
            // Two jobs fill the queue (waiting or running); the third is refused at once.
            let holders = try (0..<2).map { _ in try server.connect() }
            for holder in holders { try holder.send("GET /hold HTTP/1.1\r\nHost: t\r\n\r\n") }
            #expect(waitUntil(timeout: 10) { server.server.workers.pending == 2 })
            let third = try server.connect()
            try third.send("GET /hold HTTP/1.1\r\nHost: t\r\n\r\n")
            let refused = try third.readResponse()
            #expect(refused.status == 503)
            #expect(refused.errorCode == "UNAVAILABLE")
            #expect(refused.header("Retry-After") == "1", "\(refused)")
            // The loop itself never waited: health answers while the pool is full.
            #expect(server.stillServes())
            release.raise()
            for holder in holders { #expect(try holder.readResponse().body == "held") }
            let after = try server.connect()
            try after.send("GET /hold HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try after.readResponse().status == 200)
        }
    }

    @Test("connections over maxConnections get 503 UNAVAILABLE with Retry-After and are closed")
    func maxConnections() throws {
        try withTestHTTPServer({ $0.maxConnections = 3 }) { server in
            var open: [HTTPConnection] = []
            for _ in 0..<3 {
                let client = try server.connect()
                try client.send("GET /api/health HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(try client.readResponse().status == 200)
                open.append(client)
            }
            #expect(server.server.connectionCount == 3)

            let fourth = try server.connect()
            let refused = try fourth.readResponse(timeout: .seconds(1))
            #expect(refused.status == 503)
            #expect(refused.errorCode == "UNAVAILABLE")
            #expect(refused.header("Retry-After") == "1", "\(refused)")
            #expect(fourth.closes(within: .seconds(2)))

            // The open ones still work, and a slot freed is a slot reusable.
            try open[1].send("GET /api/health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try open[1].readResponse().status == 200)
            open.removeFirst().close()
            #expect(waitUntil(timeout: 3) { server.stillServes() })
        }
    }
}
