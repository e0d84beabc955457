import Foundation
import KuraHTTP
import KuraTestSupport
import Synchronization
import Testing

/// Which threads a request touched.
private final class ThreadLog: Sendable {
    let handler = Atomic<UInt>(0)
    let work = Atomic<UInt>(0)
    let workOnLoop = Atomic<Bool>(true)
    let started = Signal()
}

/// `GET /slow/:ms` blocks a worker-pool thread for `ms` milliseconds; `GET /fast` answers on the loop.
private func poolRoutes(_ log: ThreadLog) -> (Router<BasicRequestContext>) -> Void {
    { router in
        router.get("/slow/:ms") { request, context in
            let millis = UInt32(try request.parameter("ms")) ?? 0
            log.handler.store(UInt(pthread_self()), ordering: .relaxed)
            let loop = context.environment.eventLoop
            return context.environment.offload {
                log.work.store(UInt(pthread_self()), ordering: .relaxed)
                log.workOnLoop.store(loop.inEventLoop, ordering: .relaxed)
                log.started.raise()
                usleep(millis * 1000)
                return .text("slept \(millis)")
            }
        }
        router.get("/fast") { _, _ in .text("fast") }
    }
}

@Suite struct ServerConcurrencyTests {
    @Test("blocking work on the worker pool does not hold up other requests on the same loop")
    func workerPoolHandOff() throws {
        let log = ThreadLog()
        try withTestHTTPServer({ $0.eventLoops = 1 }, routes: poolRoutes(log)) { server in
            let slow = try server.connect()
            let slowStart = ContinuousClock.now
            try slow.send("GET /slow/500 HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(log.started.wait())

            let fast = try server.connect()
            let fastStart = ContinuousClock.now
            try fast.send("GET /fast HTTP/1.1\r\nHost: t\r\n\r\n")
            let quick = try fast.readResponse()
            let fastElapsed = ContinuousClock.now - fastStart
            #expect(quick.body == "fast")
            #expect(fastElapsed < .milliseconds(200), "/fast took \(fastElapsed) while /slow was running")
            #expect(ContinuousClock.now - slowStart < .milliseconds(500), "/slow had already finished")
            #expect(slow.pending.isEmpty)

            let slept = try slow.readResponse()
            #expect(slept.status == 200)
            #expect(slept.body == "slept 500")
            #expect(ContinuousClock.now - slowStart >= .milliseconds(450))

            let loopThread = log.handler.load(ordering: .relaxed)
            #expect(loopThread != 0)
            #expect(log.work.load(ordering: .relaxed) != loopThread, "the blocking work ran on the loop thread")
            let workOnLoop = log.workOnLoop.load(ordering: .relaxed)
            #expect(!workOnLoop)
        }
    }

    @Test("a full worker queue answers 503 UNAVAILABLE, and accepts work again once it drains")
    func workerQueueFull() throws {
        let log = ThreadLog()
        try withTestHTTPServer(
            {
                $0.eventLoops = 1; $0.workerQueueLimit = 1
            }, routes: poolRoutes(log)
        ) { server in
            let first = try server.connect()
            try first.send("GET /slow/500 HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(log.started.wait())

            let second = try server.connect()
            let start = ContinuousClock.now
            try second.send("GET /slow/500 HTTP/1.1\r\nHost: t\r\n\r\n")
            let busy = try second.readResponse()
            #expect(busy.status == 503)
            #expect(busy.errorCode == "UNAVAILABLE")
            #expect(ContinuousClock.now - start < .milliseconds(300), "the 503 should not wait for the pool")

            #expect(try first.readResponse().status == 200)
            #expect(waitUntil(timeout: 3) { server.server.workers.pending == 0 })
            try second.send("GET /slow/10 HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try second.readResponse().status == 200)
        }
    }

    @Test("shutdown lets an in-flight request finish, closes idle connections and refuses new ones")
    func gracefulShutdown() throws {
        let log = ThreadLog()
        try withTestHTTPServer(routes: poolRoutes(log)) { server in
            let idle = try server.connect()
            try idle.send("GET /fast HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try idle.readResponse().status == 200)

            let busy = try server.connect()
            try busy.send("GET /slow/500 HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(log.started.wait())

            let called = ContinuousClock.now
            server.server.shutdown()
            #expect(ContinuousClock.now - called < .milliseconds(100), "shutdown() should not block")

            #expect(idle.closes(within: .seconds(1)), "an idle connection should close at once")
            let response = try busy.readResponse()
            #expect(response.status == 200)
            #expect(response.body == "slept 500")
            #expect(response.header("Connection") == "close")
            #expect(busy.closes(within: .seconds(2)))
            // A client closes its end after `Connection: close`; until it does, the server lingers (up to 2 s)
            // so the response is not lost to a reset.
            busy.close()
            idle.close()

            #expect(
                waitUntil(timeout: 1) {
                    do {
                        _ = try HTTPConnection(port: server.port)
                        return false
                    } catch HTTPClientError.system("connect", let code) {
                        return code == ECONNREFUSED
                    } catch {
                        return false
                    }
                }, "new connections should be refused after shutdown")

            let stopping = ContinuousClock.now
            server.stop()
            #expect(ContinuousClock.now - stopping < .seconds(2), "wait() should return once drained")
        }
    }

    @Test("a streaming response delivers chunks written from another thread, then finishes")
    func streaming() throws {
        let proceed = Signal()
        let closed = Signal()
        try withTestHTTPServer(routes: { router in
            router.get("/events") { _, _ in
                .stream(headers: ["Content-Type": "text/event-stream"]) { stream in
                    stream.onClose { closed.raise() }
                    Thread.detachNewThread {
                        stream.write(Array("data: one\n\n".utf8))
                        _ = proceed.wait()
                        stream.write(Array("data: two\n\n".utf8))
                        stream.write(Array("data: three\n\n".utf8))
                        stream.finish()
                        stream.write(Array("after finish".utf8))  // ignored
                    }
                }
            }
        }) { server in
            let client = try server.connect()
            try client.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
            // The first chunk arrives while the writer is still blocked, before the stream ends.
            try client.readUntil("data: one")
            #expect(client.pending.firstRange(of: Array("0\r\n\r\n".utf8)) == nil)
            #expect(!closed.isRaised)
            proceed.raise()

            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.header("Transfer-Encoding") == "chunked")
            #expect(response.header("Content-Length") == nil)
            #expect(response.header("X-Request-Id") != nil)
            #expect(response.body == "data: one\n\ndata: two\n\ndata: three\n\n")
            #expect(closed.wait())

            // The connection serves the next request after the stream.
            try client.send("GET /api/health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().status == 200)
        }
    }

    @Test("a stream learns through onClose that its client went away")
    func streamClientGone() throws {
        let closed = Signal()
        try withTestHTTPServer(routes: { router in
            router.get("/events") { _, _ in
                .stream(headers: ["Content-Type": "text/event-stream"]) { stream in
                    stream.onClose { closed.raise() }
                    // Heartbeats, as an SSE endpoint sends them: a write is how a vanished client shows up.
                    Thread.detachNewThread {
                        while !stream.isClosed && !closed.isRaised {
                            stream.write(Array(": ping\n".utf8))
                            usleep(20_000)
                        }
                    }
                }
            }
        }) { server in
            let client = try server.connect()
            try client.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
            try client.readUntil(": ping")
            client.close()
            #expect(closed.wait(), "onClose did not run after the client disconnected")
            #expect(server.stillServes())
        }
    }

    @Test(
        "a silent stream learns that its client went away when the request asked to close after it",
        arguments: ["HTTP/1.1\r\nHost: t\r\nConnection: close", "HTTP/1.0\r\nHost: t"])
    func silentClosingStreamClientGone(requestLine: String) throws {
        // A request that ends the connection after its response stops the reading of further requests; the
        // client going away must still be seen at once, not at the next write (a listen stream may write
        // nothing for a heartbeat interval, and the SDK on Linux asks for `Connection: close`).
        let closed = Signal()
        try withTestHTTPServer(routes: { router in
            router.get("/events") { _, _ in
                .stream(headers: ["Content-Type": "text/event-stream"]) { stream in
                    stream.onClose { closed.raise() }
                    stream.write(Array(": hello\n".utf8))
                }
            }
        }) { server in
            let client = try server.connect()
            try client.send("GET /events \(requestLine)\r\n\r\n")
            try client.readUntil(": hello")
            client.close()
            #expect(closed.wait(), "onClose did not run after the client closed")
            #expect(server.stillServes())
        }
    }

    @Test("a silent stream ends as soon as its client closes the connection")
    func silentStreamClientGone() throws {
        let closed = Signal()
        try withTestHTTPServer(routes: { router in
            router.get("/events") { _, _ in
                .stream(headers: ["Content-Type": "text/event-stream"]) { stream in
                    stream.onClose { closed.raise() }
                    stream.write(Array(": hello\n".utf8))
                }
            }
        }) { server in
            let client = try server.connect()
            try client.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
            try client.readUntil(": hello")
            client.shutdownWrite()
            #expect(closed.wait(), "onClose did not run after the client's FIN")
            #expect(client.closes(within: .seconds(3)))
        }
    }
}
