import Foundation
import KuraHTTP
import KuraTestSupport
import Synchronization
import Testing

/// Long-lived streams (realtime listeners): timeouts leave them alone, and `finish(closingConnection:)` closes the
/// connection, also when the client reads nothing.
@Suite struct StreamClosingTests {
    @Test("idle and request timeouts do not close an open stream")
    func timeoutsSpareStreams() throws {
        let stream = Mutex<ResponseStream?>(nil)
        try withTestHTTPServer(
            {
                $0.idleTimeoutMs = 50
                $0.requestTimeoutMs = 50
            },
            routes: { router in
                router.get("/events") { _, _ in
                    .stream(headers: ["Content-Type": "text/event-stream"]) { writer in
                        stream.withLock { $0 = writer }
                        writer.write(Array(": open\n".utf8))
                    }
                }
            }
        ) { server in
            let client = try server.connect()
            try client.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
            try client.readUntil(": open")
            usleep(400_000)  // eight idle timeouts
            #expect(!client.closes(within: .milliseconds(100)))
            stream.withLock { $0?.write(Array("data: late\n\n".utf8)) }
            try client.readUntil("data: late")
        }
    }

    @Test("finish(closingConnection:) sends the end of the stream and closes the connection")
    func closesAfterFinishing() throws {
        try withTestHTTPServer(routes: { router in
            router.get("/events") { _, _ in
                .stream(headers: ["Content-Type": "text/event-stream"]) { writer in
                    writer.write(Array("event: overflow\ndata: {}\n\n".utf8))
                    writer.finish(closingConnection: true)
                }
            }
        }) { server in
            let client = try server.connect()
            try client.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.body == "event: overflow\ndata: {}\n\n")
            #expect(client.closes(within: .seconds(3)))
        }
    }

    @Test("a client that reads nothing is closed anyway, soon after the stream finishes")
    func closesStuckClient() throws {
        let finished = Signal()
        try withTestHTTPServer(routes: { router in
            router.get("/events") { _, _ in
                .stream(headers: ["Content-Type": "text/event-stream"]) { writer in
                    // Far more than the socket buffers hold: most of it stays queued in the server.
                    let block = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
                    for _ in 0..<16 { writer.write(block) }
                    writer.finish(closingConnection: true)
                    finished.raise()
                }
            }
        }) { server in
            let client = try server.connect()
            try client.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(finished.wait())
            #expect(waitUntil(timeout: 8) { server.server.connectionCount == 0 })
            #expect(server.stillServes())
        }
    }

    @Test("a write another thread made before one on the loop is sent first, and finish sends both")
    func writesKeepTheirOrderAcrossThreads() throws {
        try withTestHTTPServer(routes: { router in
            router.get("/events") { _, _ in
                .stream(headers: ["Content-Type": "text/event-stream"]) { writer in
                    writer.write(Array("one ".utf8))
                    // Another thread writes while the loop is busy (here: waiting for it), so its write cannot reach
                    // the loop before the loop's own next write and the finish.
                    let written = Signal()
                    Thread.detachNewThread {
                        writer.write(Array("two ".utf8))
                        written.raise()
                    }
                    _ = written.wait(timeout: 120)
                    writer.write(Array("three".utf8))
                    writer.finish(closingConnection: true)
                }
            }
        }) { server in
            let client = try server.connect()
            try client.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.body == "one two three")
        }
    }
}
