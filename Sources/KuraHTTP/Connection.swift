import CLibUV
import KuraCore
import KuraModel

#if canImport(Glibc)
    import Glibc
#endif

/// One client connection: reads bytes, feeds the parser, dispatches requests, and writes responses in request
/// order (pipelining), with keep-alive, timeouts, backpressure and graceful close. Loop thread only; other
/// threads reach it through `onLoop`.
final class Connection: @unchecked Sendable {
    // `@unchecked`: touched on its loop's thread only; other threads reach it through `onLoop`, which hops there.
    unowned let loop: HTTPLoop
    private let handle: UnsafeMutablePointer<uv_tcp_t>
    private let parser: RequestParser
    /// Position in `loop.connections`.
    var slot = -1
    /// The peer's IP address, read once at accept.
    private lazy var remoteAddress: String = peerAddress()
    /// Whether the peer is a trusted proxy, whose requests name their client in a header (`http.trustedProxies`).
    private lazy var peerIsTrustedProxy: Bool = loop.config.trustedProxies.trusts(remoteAddress)

    /// Sequence number the next parsed request gets.
    private var sequenceIn: UInt64 = 0
    /// Requests that arrived (with their sequence numbers) but are not handed to the responder yet.
    private var waiting: [(Waiting, Exchange)] = []
    /// Requests handed to the responder: sequence numbers below this.
    private var dispatched: UInt64 = 0
    /// Whether the request running now is unsafe (it then runs alone).
    private var runningUnsafe = false
    /// Sequence number whose response is written next.
    private var sequenceOut: UInt64 = 0
    /// Responses completed ahead of an earlier one that is still pending.
    private var parked: [UInt64: Outgoing] = [:]
    /// The streaming response currently holding the connection, if any.
    private var stream: ResponseStream?
    /// Close once the response with this sequence number is written.
    private var closeAfter: UInt64 = .max
    private var closeWhenFlushed = false

    private var out: [UInt8] = []
    private var batching = false
    private var writesInFlight = 0
    private var pendingWriteBytes = 0

    private enum Phase { case open, lingering, closed }
    private var phase = Phase.open
    private var reading = false

    /// `stall`: a stream of stated length whose client has taken nothing for `http.idleTimeoutMs` closes.
    private enum Deadline { case none, idle, request, linger, stall }
    private var deadlineKind = Deadline.idle
    private var deadline: UInt64 = 0

    private enum Waiting {
        case request(Request)
        /// An answer the engine made itself (a refused or timed-out request).
        case answer(Response)
    }

    private enum Outgoing {
        case bytes([UInt8])
        case stream(Response, ResponseStream, @Sendable (ResponseStream) -> Void)
    }

    init(loop: HTTPLoop, handle: UnsafeMutablePointer<uv_tcp_t>) {
        self.loop = loop
        self.handle = handle
        self.parser = RequestParser(limits: loop.config.limits)
        handle.pointee.data = Unmanaged.passRetained(self).toOpaque()
        deadline = loop.eventLoop.now + loop.config.idleTimeoutMs
        parser.onEvent = { [unowned self] event in
            switch event {
            case .begin: beginRequest()
            case .expectContinue: sendContinue()
            case .request(let parsed): dispatch(parsed)
            }
        }
    }

    /// Runs `job` on this connection's loop: now if already there, otherwise soon.
    func onLoop(_ job: @escaping @Sendable () -> Void) {
        if loop.eventLoop.inEventLoop { job() } else { loop.eventLoop.execute(job) }
    }

    var queuedBytes: Int {
        loop.eventLoop.preconditionInEventLoop()
        return pendingWriteBytes + out.count
    }

    // MARK: Reading

    /// libuv's allocation callback: every read on a loop lands in that loop's one buffer (alloc and read run back
    /// to back on the loop thread, and the bytes are consumed before the next read).
    private static let allocateReadBuffer: uv_alloc_cb = { handle, _, buf in
        let loop = Unmanaged<Connection>.fromOpaque(handle!.pointee.data).takeUnretainedValue().loop
        buf!.pointee = uv_buf_init(
            loop.readBuffer.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(loop.readBuffer.count))
    }

    func startReading() {
        loop.eventLoop.preconditionInEventLoop()
        guard phase != .closed, !reading else { return }
        reading = true
        uv_read_start(
            asStream(handle),
            Connection.allocateReadBuffer,
            { stream, nread, buf in
                let connection = Unmanaged<Connection>.fromOpaque(stream!.pointee.data).takeUnretainedValue()
                if nread > 0 {
                    connection.received(UnsafeRawBufferPointer(start: buf!.pointee.base, count: nread))
                } else if nread < 0 {
                    connection.peerClosed(error: Int32(nread) != UV_EOF.rawValue)
                }
            })
    }

    private func stopReading() {
        guard reading else { return }
        reading = false
        uv_read_stop(asStream(handle))
    }

    /// Reads while the client has few requests in flight and reads its responses; pauses otherwise. While a
    /// stream is open it always reads: the client's close is the only sign that a silent stream's listener is gone,
    /// and with reads paused (a request that asked to close after its response, HTTP/1.0, many requests queued
    /// behind the stream) it would be seen only at a later failing write, or never. What arrives then is discarded
    /// or bounded in `received`.
    private func updateReading() {
        guard phase == .open else { return }
        if stream != nil {
            startReading()
            return
        }
        let inFlight = sequenceIn - sequenceOut
        let wanted =
            closeAfter == .max && inFlight < UInt64(loop.config.maxPipelinedRequests)
            && pendingWriteBytes < loop.config.maxPendingWriteBytes
        if wanted { startReading() } else { stopReading() }
    }

    private func received(_ bytes: UnsafeRawBufferPointer) {
        guard phase == .open, closeAfter == .max else { return }  // lingering, or closing: discard
        batching = true
        switch parser.feed(bytes) {
        case .consumed: break
        case .stopped:
            // An upgrade (or CONNECT): answer what came before it, then close; the rest is another protocol.
            if closeAfter == .max { closeAfter = sequenceIn &- 1 }
            if sequenceOut > closeAfter { closeWhenFlushed = true }
        case .failed(let error): reject(error)
        }
        batching = false
        if stream != nil && sequenceIn - sequenceOut > UInt64(loop.config.maxPipelinedRequests) {
            // Requests pile up behind an open stream, which answers none of them until it ends: reads go on while
            // a stream is open (see `updateReading`), so this is where their number is bounded.
            close()
            return
        }
        flush()
        updateDeadline()
        updateReading()
    }

    private func peerClosed(error: Bool) {
        // A client that closes its side of a stream (an EventSource going away) ends the stream.
        guard phase == .open, !error, stream == nil else {
            close()
            return
        }
        // A half-closed client may still read the responses to what it sent; a request it cut short is dropped
        // (it can never be whole), not the answers to the whole ones before it.
        if sequenceIn > sequenceOut {
            closeAfter = min(closeAfter, sequenceIn - 1)
            stopReading()
        } else {
            close()
        }
    }

    // MARK: Requests

    private func beginRequest() {
        if deadlineKind != .request {
            deadlineKind = .request
            deadline = loop.eventLoop.now + loop.config.requestTimeoutMs
        }
    }

    private func sendContinue() {
        guard sequenceIn == sequenceOut, stream == nil else { return }
        out.append(contentsOf: "HTTP/1.1 100 Continue\r\n\r\n".utf8)
        if !batching { flush() }
    }

    private func dispatch(_ parsed: ParsedRequest) {
        let sequence = sequenceIn
        sequenceIn += 1
        if !parsed.keepAlive || loop.draining { closeAfter = min(closeAfter, sequence) }
        let requestID = Self.acceptableRequestID(parsed.headers["X-Request-Id"]) ?? loop.nextRequestID()
        var exchange = Exchange(
            sequence: sequence, method: parsed.method, target: parsed.target, requestID: requestID,
            startedNanos: MonotonicClock.nanoseconds(), keepAlive: parsed.keepAlive,
            http10: parsed.version.major == 1 && parsed.version.minor == 0)
        exchange.cors = loop.corsAllowsAnyOrigin ? .any : loop.config.cors.decision(origin: parsed.headers["Origin"])
        var request = Request(
            method: parsed.method, target: parsed.target, headers: parsed.headers, body: parsed.body,
            requestID: requestID, httpVersion: parsed.version)
        request.peerAddress = remoteAddress
        request.remoteAddress =
            peerIsTrustedProxy
            ? loop.config.trustedProxies.forwardedClient(in: parsed.headers) ?? remoteAddress : remoteAddress
        exchange.client = request.remoteAddress
        waiting.append((.request(request), exchange))
        runWaiting()
    }

    /// Hands waiting requests to the responder in order. Safe requests (GET, HEAD, OPTIONS) may run side by side;
    /// an unsafe one runs alone, after everything before it is answered and before anything after it starts
    /// (RFC 9112 §9.3.2), so a pipelined GET never overtakes the PUT sent before it.
    private func runWaiting() {
        while phase != .closed, case (let item, var exchange)? = waiting.first {
            var safe = true
            if case .request(let request) = item {
                safe = request.method == .GET || request.method == .HEAD || request.method == .OPTIONS
            }
            let running = dispatched - sequenceOut
            guard running == 0 || (safe && !runningUnsafe) else { return }
            waiting.removeFirst()
            dispatched += 1
            runningUnsafe = !safe
            switch item {
            case .request(let request):
                // CORS preflights are the engine's (CORSPolicy), whatever the responder routes.
                let response: Response
                if let preflight = loop.config.cors.preflightResponse(to: request) {
                    response = preflight
                    exchange.route = RouteMatch.preflight
                } else if let matched = loop.environment.matchedRoute {
                    matched.value = RouteMatch.unmatched
                    response = loop.responder.respond(to: request, environment: loop.environment)
                    exchange.route = matched.value
                } else {
                    response = loop.responder.respond(to: request, environment: loop.environment)
                }
                deliver(response, for: exchange)
            case .answer(let response):
                deliver(response, for: exchange)
            }
        }
    }

    /// Answers a request the parser refused, then closes.
    private func reject(_ error: APIError) {
        let sequence = sequenceIn
        sequenceIn += 1
        closeAfter = min(closeAfter, sequence)
        var exchange = Exchange(
            sequence: sequence, method: .other("-"), target: "-", requestID: loop.nextRequestID(), startedNanos: 0,
            keepAlive: false, http10: false)
        // Under `*` a page can read why its request was refused; a narrowed policy needs the Origin it never read.
        if loop.corsAllowsAnyOrigin { exchange.cors = .any }
        waiting.append((.answer(Response(error: error)), exchange))
        runWaiting()
    }

    private func peerAddress() -> String {
        var storage = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_getpeername(handle, $0, &length) }
        }
        guard rc == 0 else { return "" }
        var text = [CChar](repeating: 0, count: 64)
        let family = Int32(storage.ss_family)
        withUnsafePointer(to: &storage) { pointer in
            if family == AF_INET6 {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { _ = uv_ip6_name($0, &text, 64) }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { _ = uv_ip4_name($0, &text, 64) }
            }
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A client-supplied request id is kept if it is short and plain; otherwise the server makes one.
    private static func acceptableRequestID(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= 64 else { return nil }
        for c in value.utf8 {
            switch c {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                continue
            default: return nil
            }
        }
        return value
    }

    // MARK: Responses

    /// Takes a handler's response for `exchange`: writes it now if it is next in line, parks it otherwise.
    func deliver(_ response: Response, for exchange: Exchange) {
        loop.eventLoop.preconditionInEventLoop()
        guard phase != .closed else { return }
        switch response.body {
        case .deferred(let start):
            start(ResponsePromise(connection: self, exchange: exchange))
        case .bytes:
            if exchange.sequence == sequenceOut && stream == nil {
                emitBytes(response, exchange)
            } else {
                var bytes: [UInt8] = []
                loop.serialize(response, for: exchange, closing: exchange.sequence == closeAfter, into: &bytes)
                parked[exchange.sequence] = .bytes(bytes)
            }
        case .stream(let start):
            // A response that states its length is sent as it is, not in chunks (a file, possibly a range).
            let writer = ResponseStream(
                connection: self, exchange: exchange, framed: response.headers["Content-Length"] == nil)
            if exchange.sequence == sequenceOut && stream == nil {
                emitStream(response, writer, start)
            } else {
                parked[exchange.sequence] = .stream(response, writer, start)
            }
        }
        if !batching { flush() }
    }

    /// Bodies at least this large are written from their own storage instead of being copied into `out`.
    static let directWriteBytes = 16 * 1024

    private func emitBytes(_ response: Response, _ exchange: Exchange) {
        let closing = exchange.sequence == closeAfter
        if case .bytes(let body) = response.body, body.count >= Self.directWriteBytes {
            if loop.serialize(response, for: exchange, closing: closing, into: &out, bodyWritten: false) {
                writeAfterOut(body)
            }
        } else {
            loop.serialize(response, for: exchange, closing: closing, into: &out)
        }
        finishedResponse(exchange.sequence)
    }

    /// Writes what `out` holds, then `body`, with one `uv_write` that reads `body` where it is: a large file
    /// served from the hosting cache is not copied on its way to the kernel. The array (and so its storage) is
    /// kept alive by the write request until libuv's callback; nothing mutates it (arrays are values).
    private func writeAfterOut(_ body: [UInt8]) {
        guard phase != .closed else { return }
        let pending = PendingWrite(head: out, body: body)
        if out.capacity > 256 * 1024 { out = [] } else { out.removeAll(keepingCapacity: true) }
        let request = UnsafeMutablePointer<uv_write_t>.allocate(capacity: 1)
        request.pointee.data = Unmanaged.passRetained(pending).toOpaque()
        writesInFlight += 1
        pendingWriteBytes += pending.count
        let rc = pending.withBuffers { buffers, count in
            uv_write(request, asStream(handle), buffers, count) { request, status in
                let pending = Unmanaged<PendingWrite>.fromOpaque(request!.pointee.data).takeRetainedValue()
                let connection = Unmanaged<Connection>.fromOpaque(request!.pointee.handle.pointee.data)
                    .takeUnretainedValue()
                request!.deallocate()
                connection.writeCompleted(count: pending.count, failed: status < 0)
            }
        }
        if rc != 0 {
            Unmanaged<PendingWrite>.fromOpaque(request.pointee.data).release()
            request.deallocate()
            writesInFlight -= 1
            pendingWriteBytes -= pending.count
            close()
        }
    }

    private func emitStream(
        _ response: Response, _ writer: ResponseStream, _ start: @Sendable (ResponseStream) -> Void
    ) {
        loop.serializeStreamHead(response, for: writer.exchange, into: &out)
        if writer.exchange.http10 { closeAfter = min(closeAfter, writer.exchange.sequence) }
        stream = writer
        // A chunked stream (Server-Sent Events) may be quiet for long; a file going out must keep moving, or a
        // client that stops reading would hold the connection and the open file forever.
        if writer.framed {
            deadlineKind = .none
        } else {
            deadlineKind = .stall
            deadline = loop.eventLoop.now + loop.config.idleTimeoutMs
        }
        start(writer)
        updateReading()
    }

    private func finishedResponse(_ sequence: UInt64) {
        sequenceOut = sequence + 1
        if sequence == closeAfter {
            closeWhenFlushed = true
            return
        }
        while stream == nil, let next = parked.removeValue(forKey: sequenceOut) {
            switch next {
            case .bytes(let bytes):
                out.append(contentsOf: bytes)
                let sequence = sequenceOut
                sequenceOut += 1
                if sequence == closeAfter {
                    closeWhenFlushed = true
                    return
                }
            case .stream(let response, let writer, let start):
                emitStream(response, writer, start)
            }
        }
        runWaiting()
        updateDeadline()
        updateReading()
    }

    func writeChunk(_ bytes: [UInt8], for exchange: Exchange, framed: Bool = true) {
        loop.eventLoop.preconditionInEventLoop()
        guard phase == .open, stream?.exchange.sequence == exchange.sequence else { return }
        if !framed {
            // The head announced the length; HEAD gets the head alone.
            guard !exchange.isHead else { return }
            streamProgressed()
            out.append(contentsOf: bytes)
            if !batching { flush() }
            return
        }
        if !exchange.http10 {
            out.append(contentsOf: String(bytes.count, radix: 16).utf8)
            out.append(contentsOf: "\r\n".utf8)
        }
        out.append(contentsOf: bytes)
        if !exchange.http10 { out.append(contentsOf: "\r\n".utf8) }
        if !batching { flush() }
    }

    /// How long a connection closed after its stream (`finish(closingConnection:)`) waits for the client to take
    /// the last bytes.
    static let closeGraceMs: UInt64 = 5000

    /// How long a connection closed after an error response keeps reading (and discarding) after its FIN, so a
    /// client still sending a refused body reads the answer instead of a reset.
    static let lingerMs: UInt64 = 2000

    func finishStream(_ writer: ResponseStream, closing: Bool = false) {
        loop.eventLoop.preconditionInEventLoop()
        guard phase == .open, stream === writer else { return }
        if writer.framed && !writer.exchange.http10 { out.append(contentsOf: "0\r\n\r\n".utf8) }
        stream = nil
        if closing {
            closeAfter = min(closeAfter, writer.exchange.sequence)
            stopReading()
            // A client that never reads would keep the queued bytes forever: close at the deadline regardless.
            deadlineKind = .linger
            deadline = loop.eventLoop.now + Self.closeGraceMs
        }
        finishedResponse(writer.exchange.sequence)
        if !batching { flush() }
    }

    // MARK: Writing

    private func flush() {
        guard phase != .closed else { return }
        if !out.isEmpty {
            var written = 0
            if writesInFlight == 0 {
                let rc = out.withUnsafeMutableBytes { raw -> Int32 in
                    var buf = uv_buf_init(raw.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(raw.count))
                    return uv_try_write(asStream(handle), &buf, 1)
                }
                if rc >= 0 {
                    written = Int(rc)
                } else if rc != UV_EAGAIN.rawValue {
                    close()
                    return
                }
            }
            if written < out.count { queueWrite(from: written) }
            if out.capacity > 256 * 1024 { out = [] } else { out.removeAll(keepingCapacity: true) }
        }
        if closeWhenFlushed && writesInFlight == 0 { shutdownAndLinger() }
    }

    /// Copies what `uv_try_write` could not send into a buffer that lives until libuv's write callback.
    /// The buffer starts with its length so the callback can account for it.
    private func queueWrite(from offset: Int) {
        let count = out.count - offset
        let header = MemoryLayout<Int>.stride
        let request = UnsafeMutablePointer<uv_write_t>.allocate(capacity: 1)
        let storage = UnsafeMutableRawPointer.allocate(byteCount: header + count, alignment: 16)
        storage.storeBytes(of: count, as: Int.self)
        out.withUnsafeBytes { (storage + header).copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
        request.pointee.data = storage
        var buf = uv_buf_init((storage + header).assumingMemoryBound(to: CChar.self), UInt32(count))
        writesInFlight += 1
        pendingWriteBytes += count
        let rc = uv_write(request, asStream(handle), &buf, 1) { request, status in
            let connection = Unmanaged<Connection>.fromOpaque(request!.pointee.handle.pointee.data)
                .takeUnretainedValue()
            let storage = request!.pointee.data!
            let count = storage.load(as: Int.self)
            storage.deallocate()
            request!.deallocate()
            connection.writeCompleted(count: count, failed: status < 0)
        }
        if rc != 0 {
            storage.deallocate()
            request.deallocate()
            writesInFlight -= 1
            pendingWriteBytes -= count
            close()
        }
    }

    private func writeCompleted(count: Int, failed: Bool) {
        writesInFlight -= 1
        pendingWriteBytes -= count
        if failed {
            close()
            return
        }
        if closeWhenFlushed && writesInFlight == 0 && out.isEmpty { shutdownAndLinger() }
        updateReading()
        streamProgressed()
        stream?.queueShrank(to: pendingWriteBytes + out.count)
    }

    // MARK: Closing

    /// Sends FIN once everything is written, then keeps reading (and discarding) briefly so the client reads
    /// the last response before the socket goes away instead of getting a reset.
    private func shutdownAndLinger() {
        guard phase == .open else { return }
        phase = .lingering
        closeWhenFlushed = false
        deadlineKind = .linger
        deadline = loop.eventLoop.now + Self.lingerMs
        let request = UnsafeMutablePointer<uv_shutdown_t>.allocate(capacity: 1)
        let rc = uv_shutdown(request, asStream(handle)) { request, _ in request?.deallocate() }
        if rc != 0 {
            request.deallocate()
            close()
            return
        }
        reading = false
        uv_read_start(
            asStream(handle),
            Connection.allocateReadBuffer,
            { stream, nread, _ in
                if nread < 0 {
                    Unmanaged<Connection>.fromOpaque(stream!.pointee.data).takeUnretainedValue().close()
                }
            })
    }

    /// Closes the socket now. Streams are told; pending promises complete into nothing.
    func close() {
        loop.eventLoop.preconditionInEventLoop()
        guard phase != .closed else { return }
        phase = .closed
        parked.removeAll()
        waiting.removeAll()
        out = []
        loop.remove(self)
        if let stream {
            self.stream = nil
            stream.markClosed()
        }
        uv_close(asHandle(handle)) { handle in
            Unmanaged<Connection>.fromOpaque(handle!.pointee.data).release()
            handle!.deallocate()
        }
    }

    /// Shutdown: idle connections close once their last bytes are written; busy ones close after their
    /// in-flight responses. An open stream is finished first.
    func drain() {
        loop.eventLoop.preconditionInEventLoop()
        guard phase == .open else { return }
        if let stream { stream.finish() }
        if sequenceIn == sequenceOut && stream == nil && !parser.inMessage {
            if writesInFlight == 0 && out.isEmpty {
                close()
            } else {
                closeWhenFlushed = true
                flush()
            }
        } else if !parser.inMessage || sequenceIn > sequenceOut {
            closeAfter = min(closeAfter, sequenceIn &- 1)
            stopReading()
        }
    }

    // MARK: Timeouts

    private func updateDeadline() {
        guard phase == .open, deadlineKind != .linger else { return }
        if parser.inMessage { return }  // the request deadline set when it began stands
        if sequenceIn == sequenceOut && stream == nil {
            deadlineKind = .idle
            deadline = loop.eventLoop.now + loop.config.idleTimeoutMs
        } else if let stream, !stream.framed {
            if deadlineKind != .stall {
                deadlineKind = .stall
                deadline = loop.eventLoop.now + loop.config.idleTimeoutMs
            }
        } else {
            deadlineKind = .none
        }
    }

    /// The client took bytes of a stream of stated length (or the writer found room for more): its stall deadline
    /// starts over.
    private func streamProgressed() {
        guard deadlineKind == .stall else { return }
        deadline = loop.eventLoop.now + loop.config.idleTimeoutMs
    }

    func checkDeadline(now: UInt64) {
        loop.eventLoop.preconditionInEventLoop()
        guard deadlineKind != .none, now >= deadline else { return }
        switch deadlineKind {
        case .request where phase == .open && sequenceIn == sequenceOut:
            deadlineKind = .none
            reject(.requestTimeout("the request did not arrive in \(loop.config.requestTimeoutMs) ms"))
            flush()
        default:
            close()
        }
    }
}

/// The bytes of one `writeAfterOut`: the head (copied from `out`) and the body (shared, not copied).
private final class PendingWrite {
    let head: [UInt8]
    let body: [UInt8]
    var count: Int { head.count + body.count }

    init(head: [UInt8], body: [UInt8]) {
        self.head = head
        self.body = body
    }

    /// Calls `write` with libuv buffers over the two arrays' storage; the storage outlives the call because this
    /// object owns the arrays until the write completes.
    func withBuffers(_ write: (UnsafePointer<uv_buf_t>, UInt32) -> Int32) -> Int32 {
        head.withUnsafeBytes { head in
            body.withUnsafeBytes { body in
                var buffers = [
                    uv_buf_init(
                        UnsafeMutablePointer(mutating: head.baseAddress?.assumingMemoryBound(to: CChar.self)),
                        UInt32(head.count)),
                    uv_buf_init(
                        UnsafeMutablePointer(mutating: body.baseAddress!.assumingMemoryBound(to: CChar.self)),
                        UInt32(body.count)),
                ]
                let skip = head.isEmpty ? 1 : 0
                return buffers.withUnsafeMutableBufferPointer { write($0.baseAddress! + skip, UInt32(2 - skip)) }
            }
        }
    }
}
