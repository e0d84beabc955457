import CLibUV
import KuraCore
import KuraModel

#if canImport(Glibc)
    import Glibc
#endif

/// The HTTP engine's state for one event loop: its listener, its connections, the timer that enforces
/// timeouts, and the per-loop caches (read buffer, Date header, buffered access log). Loop thread only,
/// apart from `init` and the listener set-up, which run before the loop starts.
final class HTTPLoop: @unchecked Sendable {
    // `@unchecked`: loop thread only, apart from `init` and the listener set-up, which happen before the loop runs.
    let eventLoop: EventLoop
    let config: HTTPServerConfiguration
    let responder: any HTTPResponder
    let logger: Logger
    let environment: RequestEnvironment
    unowned let server: HTTPServer

    var listener: UnsafeMutablePointer<uv_tcp_t>?
    private var timer: UnsafeMutablePointer<uv_timer_t>?
    private var graceTimer: UnsafeMutablePointer<uv_timer_t>?
    /// The loop's open connections; loop thread only (checked in debug builds).
    private(set) var connections: LoopBound<[Connection]>
    private(set) var draining = false
    private var stopped = false

    /// One read buffer per loop: libuv calls alloc and read back to back on this thread.
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    private var dateSecond: Int64 = -1
    private(set) var dateLine: [UInt8] = []
    private var logSecond: Int64 = -1
    private var logPrefix: [UInt8] = []
    private var accessLog: [UInt8] = []
    private var requestCounter: UInt64 = 0
    private let requestIDPrefix: String
    let logAccess: Bool
    /// `cors.origins` is `*`: every response gets the same CORS headers, and no request's `Origin` is read.
    let corsAllowsAnyOrigin: Bool

    /// This loop's request counts and latencies; `nil` when the metrics are off.
    let metrics: RequestMetrics?

    init(
        eventLoop: EventLoop, server: HTTPServer, responder: any HTTPResponder, workers: WorkerPool, logger: Logger,
        metrics: RequestMetrics?
    ) {
        self.metrics = metrics
        self.eventLoop = eventLoop
        self.connections = LoopBound([], eventLoop: eventLoop)
        self.server = server
        self.config = server.configuration
        self.responder = responder
        self.logger = logger
        self.logAccess = logger.isEnabled(.info)
        self.corsAllowsAnyOrigin = server.configuration.cors.origins == .any
        self.environment = RequestEnvironment(
            eventLoop: eventLoop, workers: workers, logger: logger, verboseErrors: server.configuration.verboseErrors,
            matchedRoute: metrics == nil ? nil : MatchedRoute())
        self.requestIDPrefix = server.instanceID + "-" + String(eventLoop.index) + "-"
    }

    deinit { readBuffer.deallocate() }

    // MARK: Listening

    /// Binds a listener on `address` with SO_REUSEPORT, so every loop can listen on the same port.
    func listen(on address: UnsafePointer<sockaddr>, family: Int32) throws {
        let handle = allocateHandle(uv_tcp_t.self)
        uv_tcp_init_ex(eventLoop.uvLoop, handle, UInt32(family))
        handle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        listener = handle
        var fd: uv_os_fd_t = -1
        try check(uv_fileno(asHandle(handle), &fd), "uv_fileno")
        guard kura_set_reuseport(fd) == 0 else {
            throw HTTPServerError.system(call: "setsockopt(SO_REUSEPORT)", code: -errno)
        }
        try check(uv_tcp_bind(handle, address, 0), "uv_tcp_bind")
        try check(
            uv_listen(asStream(handle), config.backlog) { server, status in
                guard status == 0, let server, let data = server.pointee.data else { return }
                Unmanaged<HTTPLoop>.fromOpaque(data).takeUnretainedValue().accept(from: server)
            }, "uv_listen")
    }

    /// The port the listener is bound to.
    func boundPort() -> Int {
        guard let listener else { return 0 }
        var storage = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_getsockname(listener, $0, &length) }
        }
        guard rc == 0 else { return 0 }
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer -> Int in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                Int(UInt16(bigEndian: $0.pointee.sin_port))
            }
        }
    }

    /// Starts the timeout timer. Called before the loop thread starts.
    func startTimer() {
        let handle = allocateHandle(uv_timer_t.self)
        uv_timer_init(eventLoop.uvLoop, handle)
        handle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        timer = handle
        let shortest = min(config.requestTimeoutMs, config.idleTimeoutMs)
        let interval = max(5, min(1000, shortest / 4))
        uv_timer_start(
            handle,
            { timer in
                Unmanaged<HTTPLoop>.fromOpaque(timer!.pointee.data).takeUnretainedValue().tick()
            }, interval, interval)
    }

    private func accept(from server: UnsafeMutablePointer<uv_stream_t>) {
        let client = allocateHandle(uv_tcp_t.self)
        uv_tcp_init(eventLoop.uvLoop, client)
        guard uv_accept(server, asStream(client)) == 0 else {
            uv_close(asHandle(client), freeHandleOnClose)
            return
        }
        guard !draining, self.server.admitConnection() else {
            refuse(client)
            return
        }
        uv_tcp_nodelay(client, 1)
        let connection = Connection(loop: self, handle: client)
        connection.slot = connections.value.count
        connections.value.append(connection)
        connection.startReading()
    }

    /// Answers 503 to a connection over the limit and closes it, without keeping any state for it.
    private func refuse(_ client: UnsafeMutablePointer<uv_tcp_t>) {
        var bytes: [UInt8] = []
        let error = APIError.busy("too many open connections (limit \(config.maxConnections)); retry later")
        var exchange = Exchange(
            sequence: 0, method: .GET, target: "-", requestID: nextRequestID(), startedNanos: 0, keepAlive: false,
            http10: false)
        if corsAllowsAnyOrigin { exchange.cors = .any }
        serialize(Response(error: error), for: exchange, closing: true, into: &bytes)
        bytes.withUnsafeMutableBytes { raw in
            var buf = uv_buf_init(raw.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(raw.count))
            _ = uv_try_write(asStream(client), &buf, 1)
        }
        uv_close(asHandle(client), freeHandleOnClose)
    }

    func remove(_ connection: Connection) {
        let slot = connection.slot
        guard slot >= 0, slot < connections.value.count, connections.value[slot] === connection else { return }
        let last = connections.value.removeLast()
        if slot < connections.value.count {
            connections.value[slot] = last
            last.slot = slot
        }
        connection.slot = -1
        server.releaseConnection()
        if draining && connections.value.isEmpty { stop() }
    }

    // MARK: Timeouts

    private func tick() {
        let now = eventLoop.now
        var index = 0
        while index < connections.value.count {
            let connection = connections.value[index]
            connection.checkDeadline(now: now)
            // A connection that closed itself was swapped out of this slot; look at the slot again.
            if index < connections.value.count && connections.value[index] === connection { index += 1 }
        }
        flushAccessLog()
    }

    // MARK: Shutdown

    /// Stops accepting, lets in-flight requests finish, closes idle connections; after the grace period closes
    /// the rest. The loop thread ends once every connection is closed.
    func drain() {
        guard !draining else { return }
        draining = true
        if let listener {
            uv_close(asHandle(listener), freeHandleOnClose)
            self.listener = nil
        }
        for connection in connections.value { connection.drain() }
        if connections.value.isEmpty {
            stop()
            return
        }
        let handle = allocateHandle(uv_timer_t.self)
        uv_timer_init(eventLoop.uvLoop, handle)
        handle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        graceTimer = handle
        uv_timer_start(
            handle,
            { timer in
                let loop = Unmanaged<HTTPLoop>.fromOpaque(timer!.pointee.data).takeUnretainedValue()
                loop.logger.warn("shutdown grace period over; closing \(loop.connections.value.count) connections")
                // The loop ends once its work has finished: work not started yet is dropped, so the stop waits
                // for running jobs only (each bounded: a password hash by auth.argon2Max*).
                let cancelled = loop.eventLoop.cancelQueuedWork()
                if cancelled > 0 { loop.logger.warn("cancelled \(cancelled) queued jobs that had not started") }
                for connection in loop.connections.value { connection.close() }
            }, config.shutdownGraceMs, 0)
    }

    private func stop() {
        guard !stopped else { return }
        stopped = true
        flushAccessLog()
        for handle in [timer, graceTimer].compactMap({ $0 }) {
            uv_timer_stop(handle)
            uv_close(asHandle(handle), freeHandleOnClose)
        }
        timer = nil
        graceTimer = nil
        if let listener {
            uv_close(asHandle(listener), freeHandleOnClose)
            self.listener = nil
        }
        eventLoop.closeWakeup()
    }

    // MARK: Per-request helpers

    func nextRequestID() -> String {
        requestCounter &+= 1
        return requestIDPrefix + String(requestCounter, radix: 16)
    }

    private func refreshDate() {
        let second = Int64(time(nil))
        guard second != dateSecond else { return }
        dateSecond = second
        dateLine = Array("Date: \(WallClock.httpDate(seconds: second))\r\n".utf8)
    }

    /// Writes the status line, headers and (unless HEAD) body of `response` into `out`, and logs the exchange.
    /// With `bodyWritten: false` the body is left out (the caller writes it from its own storage); the return value
    /// says whether a body belongs after the head.
    @discardableResult
    func serialize(
        _ response: Response, for exchange: Exchange, closing: Bool, into out: inout [UInt8], bodyWritten: Bool = true
    ) -> Bool {
        let body: [UInt8]
        if case .bytes(let bytes) = response.body { body = bytes } else { body = [] }
        out.reserveCapacity(out.count + 160 + (bodyWritten ? body.count : 0))
        appendHead(response, for: exchange, into: &out)
        let bodyAllowed = !HTTPStatus.forbidsBody(response.status)
        if bodyAllowed {
            out.append(contentsOf: "Content-Length: ".utf8)
            appendDecimal(body.count, to: &out)
            out.append(contentsOf: "\r\n".utf8)
        }
        if closing {
            out.append(contentsOf: "Connection: close\r\n".utf8)
        } else if exchange.http10 {
            out.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        out.append(contentsOf: "\r\n".utf8)
        let sendsBody = bodyAllowed && !exchange.isHead && !body.isEmpty
        if sendsBody && bodyWritten { out.append(contentsOf: body) }
        log(exchange, status: response.status)
        return sendsBody
    }

    /// The head of a streaming response: chunked for HTTP/1.1; HTTP/1.0 gets raw bytes until the connection closes.
    /// A response with its own `Content-Length` is sent as it is (and HTTP/1.0 still closes after it).
    func serializeStreamHead(_ response: Response, for exchange: Exchange, into out: inout [UInt8]) {
        appendHead(response, for: exchange, into: &out)
        if exchange.http10 {
            out.append(contentsOf: "Connection: close\r\n\r\n".utf8)
        } else {
            let sized = response.headers["Content-Length"] != nil
            out.append(contentsOf: sized ? "\r\n".utf8 : "Transfer-Encoding: chunked\r\n\r\n".utf8)
        }
        log(exchange, status: response.status)
    }

    /// Status line, Date, X-Request-Id, the CORS headers and the response's own headers; framing headers are the
    /// caller's.
    private func appendHead(_ response: Response, for exchange: Exchange, into out: inout [UInt8]) {
        refreshDate()
        out.append(contentsOf: exchange.http10 ? "HTTP/1.0 ".utf8 : "HTTP/1.1 ".utf8)
        appendDecimal(response.status, to: &out)
        out.append(0x20)
        out.append(contentsOf: HTTPStatus.reason(response.status).utf8)
        out.append(contentsOf: "\r\n".utf8)
        out.append(contentsOf: dateLine)
        out.append(contentsOf: "X-Request-Id: ".utf8)
        out.append(contentsOf: exchange.requestID.utf8)
        out.append(contentsOf: "\r\n".utf8)
        exchange.cors.appendHeaders(to: &out)
        for field in response.headers {
            out.append(contentsOf: field.name.utf8)
            out.append(contentsOf: ": ".utf8)
            out.append(contentsOf: field.value.utf8)
            out.append(contentsOf: "\r\n".utf8)
        }
    }

    /// Appends one access-log line; lines are buffered per loop and written by the timer (or when the buffer fills).
    private func log(_ exchange: Exchange, status: Int) {
        guard metrics != nil || logAccess else { return }
        // One clock read serves both the metrics and the log line.
        let now = MonotonicClock.nanoseconds()
        let elapsed = exchange.startedNanos == 0 ? 0 : now &- exchange.startedNanos
        metrics?.record(route: exchange.route, method: exchange.method, status: status, nanos: elapsed, now: now)
        guard logAccess else { return }
        let micros = WallClock.nowMicros()
        let second = micros / 1_000_000
        if second != logSecond {
            logSecond = second
            var prefix: [UInt8] = []
            RFC3339.append(second * 1_000_000, to: &prefix, fractionDigits: 0)
            prefix.removeLast()  // the Z; milliseconds go in between
            logPrefix = prefix
        }
        accessLog.append(contentsOf: logPrefix)
        accessLog.append(UInt8(ascii: "."))
        let millis = Int(micros % 1_000_000) / 1000
        accessLog.append(UInt8(ascii: "0") + UInt8(millis / 100))
        accessLog.append(UInt8(ascii: "0") + UInt8(millis / 10 % 10))
        accessLog.append(UInt8(ascii: "0") + UInt8(millis % 10))
        accessLog.append(contentsOf: "Z INFO ".utf8)
        accessLog.append(contentsOf: exchange.method.description.utf8)
        accessLog.append(0x20)
        accessLog.append(contentsOf: exchange.logPath.utf8)
        accessLog.append(0x20)
        appendDecimal(status, to: &accessLog)
        accessLog.append(0x20)
        appendDecimal(Int(elapsed / 1_000_000), to: &accessLog)
        accessLog.append(UInt8(ascii: "."))
        let fraction = Int(elapsed / 1000 % 1000)
        accessLog.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        accessLog.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        accessLog.append(UInt8(ascii: "0") + UInt8(fraction % 10))
        accessLog.append(contentsOf: "ms id=".utf8)
        accessLog.append(contentsOf: exchange.requestID.utf8)
        if !exchange.client.isEmpty {
            accessLog.append(contentsOf: " client=".utf8)
            accessLog.append(contentsOf: exchange.client.utf8)
        }
        accessLog.append(0x0A)
        if accessLog.count > 32 * 1024 { flushAccessLog() }
    }

    func flushAccessLog() {
        guard !accessLog.isEmpty else { return }
        logger.writeRaw(accessLog)
        accessLog.removeAll(keepingCapacity: true)
    }
}

@inline(__always)
func appendDecimal(_ value: Int, to out: inout [UInt8]) {
    if value < 10 && value >= 0 {
        out.append(UInt8(ascii: "0") + UInt8(value))
        return
    }
    var digits:
        (
            UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
            UInt8, UInt8, UInt8, UInt8, UInt8
        ) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var v = value.magnitude
    var count = 0
    withUnsafeMutableBytes(of: &digits) { buffer in
        repeat {
            buffer[19 - count] = UInt8(ascii: "0") + UInt8(v % 10)
            v /= 10
            count += 1
        } while v > 0
        if value < 0 { out.append(UInt8(ascii: "-")) }
        out.append(contentsOf: buffer[(20 - count)...])
    }
}

/// Errors starting the server, each saying what failed: a libuv call's failure carries the call and libuv's own
/// error name (`EADDRNOTAVAIL`, `EACCES`, …), not a blanket "cannot bind".
public enum HTTPServerError: Error, CustomStringConvertible, Equatable {
    /// `start()` was called on a server that is running or has run.
    case alreadyStarted
    /// The configured port is not in 0…65535.
    case portOutOfRange(Int)
    /// Another process listens on the port (or holds its claim): "port N is already in use".
    case portInUse(Int)
    case invalidHost(String)
    /// A system or libuv call failed while setting up a listener: the call, and the (negative) error code.
    case system(call: String, code: Int32)

    public var description: String {
        switch self {
        case .alreadyStarted: "cannot start: the server was already started"
        case .portOutOfRange(let port): "cannot listen: port \(port) is out of range (0–65535)"
        case .portInUse(let port): "cannot listen: port \(port) is already in use (by another process)"
        case .invalidHost(let host): "cannot listen on '\(host)': use an IP address or localhost"
        case .system(let call, let code):
            "cannot listen: \(call) failed: \(String(cString: uv_strerror(code))) (\(String(cString: uv_err_name(code))))"
        }
    }
}

/// Throws `HTTPServerError.system` for a libuv call's negative return code.
func check(_ rc: Int32, _ call: String) throws {
    guard rc == 0 else { throw HTTPServerError.system(call: call, code: rc) }
}
