import Foundation
import KuraHTTP
import KuraTestSupport
import Synchronization
import Testing

/// A stopping server waits for the work its loops handed to the worker pool. Once the grace period is over it
/// waits only for work already running: jobs still queued are cancelled, so a queue of slow jobs (password hashes)
/// cannot keep the process alive long after SIGTERM.
@Suite struct ShutdownWorkTests {
    @Test("after the grace period, queued work is cancelled and the stop waits for running work only")
    func graceCancelsQueuedWork() throws {
        // libuv's pool is per process, sized by UV_THREADPOOL_SIZE (4 when unset).
        let threads = Int(ProcessInfo.processInfo.environment["UV_THREADPOOL_SIZE"] ?? "") ?? 4
        let queued = 3
        let gate = DispatchSemaphore(value: 0)
        let started = StartedJobs()
        try withTestHTTPServer(
            {
                $0.eventLoops = 1
                $0.shutdownGraceMs = 100
            },
            routes: { router in
                router.get("/block") { _, context in
                    context.environment.offload {
                        started.count.add(1, ordering: .relaxed)
                        gate.wait()
                        return .text("done")
                    }
                }
            }
        ) { server in
            var clients: [HTTPConnection] = []
            for _ in 0..<threads {
                let client = try server.connect(timeout: .seconds(60))
                try client.send("GET /block HTTP/1.1\r\nHost: t\r\n\r\n")
                clients.append(client)
            }
            // Every pool thread holds one job (other tests' jobs may delay that, never prevent it).
            #expect(waitUntil(timeout: 60) { started.count.load(ordering: .relaxed) == threads })
            var waiting: [HTTPConnection] = []
            for _ in 0..<queued {
                let client = try server.connect(timeout: .seconds(60))
                try client.send("GET /block HTTP/1.1\r\nHost: t\r\n\r\n")
                waiting.append(client)
            }
            #expect(server.stillServes())
            server.server.shutdown()
            // The grace period ends with the connections closed (the queued jobs were cancelled just before).
            #expect(throws: (any Error).self) { try waiting[0].readResponse() }
            // Enough for every job, should any queued one start anyway.
            for _ in 0..<(threads + queued) { gate.signal() }
            server.server.wait()
            #expect(started.count.load(ordering: .relaxed) == threads, "queued jobs ran after the grace period")
        }
    }
}

private final class StartedJobs: Sendable {
    let count = Atomic<Int>(0)
}
