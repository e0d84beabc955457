import Foundation
import KuraHTTP
import KuraTestSupport
import Testing

@testable import KuraClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A stream's last event (`overflow`, `auth_revoked`) is followed by the server's close: the SDK waits for that close
/// instead of cancelling (a cancel that meets the close traps in swift-corelibs-foundation), and cancels only a
/// stream the server keeps open. Against a bare HTTP server that plays the listen endpoint.
@Suite struct LastEventTests {
    /// Serves `GET /api/listen` as `event` and then, when `closes`, the end of the stream; counts the streams whose
    /// connection went away.
    func withListenEndpoint(
        event: String, closes: Bool, _ body: (Kura, EventStreamRequest, Shared<Int>) async throws -> Void
    ) async throws {
        let closed = Shared(0)
        let server = try TestHTTPServer(configuration: TestHTTPServer.configuration()) { router in
            router.get("/api/listen") { _, _ in
                .stream(headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"]) { stream in
                    stream.onClose { closed.withLock { $0 += 1 } }
                    stream.write(Array("event: \(event)\ndata: {\"code\":\"OVERFLOW\",\"message\":\"m\"}\n\n".utf8))
                    if closes { stream.finish(closingConnection: true) }
                }
            }
        }
        defer { server.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)"))
        let kura = Kura(url: url, settings: .init(session: .memory))
        var request = URLRequest(url: url.appendingPathComponent("api/listen"))
        request.setValue("close", forHTTPHeaderField: "Connection")
        try await body(kura, EventStreamRequest(request: request), closed)
    }

    @Test(
        "after `overflow` the stream is read to the server's close, so it is never cancelled",
        .timeLimit(.minutes(2)))
    func overflowWaitsForTheClose() async throws {
        try await withListenEndpoint(event: "overflow", closes: true) { kura, stream, _ in
            // A grace far past the time limit: only the server's close can end this read.
            let ending = await kura.listeners.consume(stream, lastEventGrace: 3600)
            guard case .overflow = ending else { throw TestFailure("ended with \(ending)") }
            #expect(stream.isCompleted)
        }
    }

    @Test("after `auth_revoked` too", .timeLimit(.minutes(2)))
    func authRevokedWaitsForTheClose() async throws {
        try await withListenEndpoint(event: "auth_revoked", closes: true) { kura, stream, _ in
            let ending = await kura.listeners.consume(stream, lastEventGrace: 3600)
            guard case .authRevoked = ending else { throw TestFailure("ended with \(ending)") }
            #expect(stream.isCompleted)
        }
    }

    @Test("a stream still open after its last event (a proxy holding it) is closed by the SDK after the grace")
    func aHeldStreamIsClosedAfterTheGrace() async throws {
        try await withListenEndpoint(event: "overflow", closes: false) { kura, stream, closed in
            let ending = await kura.listeners.consume(stream, lastEventGrace: 0.2)
            guard case .overflow = ending else { throw TestFailure("ended with \(ending)") }
            #expect(stream.isCompleted)
            #expect(await eventually { closed.withLock { $0 } == 1 })
        }
    }
}
