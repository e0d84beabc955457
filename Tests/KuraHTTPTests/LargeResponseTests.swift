import Foundation
import KuraHTTP
import KuraTestSupport
import Testing

/// Bodies large enough to be written from their own storage (`Connection.directWriteBytes`): whole, in order with
/// the small responses around them, for clients that read late.
@Suite struct LargeResponseTests {
    static let big: [UInt8] = (0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }

    static func routes(_ router: Router<BasicRequestContext>) {
        let big = Self.big
        router.get("/big") { _, _ in
            Response(status: 200, headers: ["Content-Type": "application/octet-stream"], body: big)
        }
        router.get("/small/:n") { request, _ in .text("small \(try request.parameter("n"))") }
        router.get("/big-later") { _, _ in
            .later { promise in
                Thread.detachNewThread {
                    usleep(50_000)
                    promise.succeed(Response(status: 200, headers: [:], body: big))
                }
            }
        }
    }

    @Test("pipelined large and small responses arrive whole and in order to a client that reads late")
    func pipelinedSlowReader() throws {
        try withTestHTTPServer(routes: Self.routes) { server in
            let client = try server.connect()
            try client.send(
                "GET /small/1 HTTP/1.1\r\nHost: t\r\n\r\nGET /big HTTP/1.1\r\nHost: t\r\n\r\n"
                    + "GET /big-later HTTP/1.1\r\nHost: t\r\n\r\nGET /small/2 HTTP/1.1\r\nHost: t\r\n\r\n"
                    + "HEAD /big HTTP/1.1\r\nHost: t\r\n\r\nGET /big HTTP/1.1\r\nHost: t\r\n\r\n")
            usleep(300_000)  // let the server fill the socket buffers and queue the rest
            #expect(try client.readResponse().body == "small 1")
            #expect(try client.readResponse(timeout: .seconds(10)).bodyBytes == Self.big)
            #expect(try client.readResponse(timeout: .seconds(10)).bodyBytes == Self.big)
            #expect(try client.readResponse().body == "small 2")
            let head = try client.readResponse(head: true)
            #expect(head.header("Content-Length") == String(Self.big.count))
            #expect(head.bodyBytes.isEmpty)
            #expect(try client.readResponse(timeout: .seconds(10)).bodyBytes == Self.big)
            #expect(server.stillServes())
        }
    }

    @Test("a client that closes in the middle of a large body leaves the server serving")
    func closedMidBody() throws {
        try withTestHTTPServer(routes: Self.routes) { server in
            for _ in 0..<5 {
                let client = try server.connect()
                try client.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\nGET /big HTTP/1.1\r\nHost: t\r\n\r\n")
                client.receiveMore(timeout: .seconds(1))
                client.close()
            }
            #expect(waitUntil(timeout: 3) { server.stillServes() })
        }
    }
}
