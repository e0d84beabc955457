import Synchronization

/// The writer of a streaming response: chunked (Server-Sent Events), or of a length given in advance when the
/// response has a `Content-Length` header (a file). Safe to use from any thread; writes are sent on the
/// connection's loop in the order they were made, and `finish` ends the stream after every write made before it,
/// whichever threads made them (a write on the loop does not overtake one a worker made before it).
public final class ResponseStream: Sendable {
    let connection: Connection
    let exchange: Exchange
    /// Whether writes are chunks (`Transfer-Encoding: chunked`); false when the response gave its `Content-Length`,
    /// and the writer then owes exactly that many bytes (or finishes with `closingConnection`).
    let framed: Bool
    private let state = Mutex<State>(State())

    private struct State {
        var closed = false
        /// `finish` was called: later writes are ignored.
        var finishing = false
        /// Chunks written but not yet handed to the connection, oldest first.
        var pending: [[UInt8]] = []
        /// Whether a job that hands `pending` to the connection is queued on the loop.
        var handOverQueued = false
        var onClose: (@Sendable () -> Void)?
        /// Run once at most `limit` bytes are queued (`whenQueued`).
        var drained: (limit: Int, handler: @Sendable () -> Void)?
    }

    init(connection: Connection, exchange: Exchange, framed: Bool = true) {
        self.connection = connection
        self.exchange = exchange
        self.framed = framed
    }

    /// The loop this stream's connection lives on.
    public var eventLoop: EventLoop { connection.loop.eventLoop }

    /// The request id of the request being answered.
    public var requestID: String { exchange.requestID }

    /// Whether the stream has finished or the client went away.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Bytes written but not yet accepted by the kernel. Loop thread only.
    public var queuedBytes: Int { connection.queuedBytes }

    /// Called once, on the loop, when the stream ends for any reason (finished or client gone).
    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.closed { return true }
            state.onClose = handler
            return false
        }
        if runNow { handler() }
    }

    /// Sends `bytes` as one chunk. Ignored after the stream closed or `finish` was called.
    ///
    /// The chunk joins the stream's queue and the loop takes the queue in order: a write on the loop thread first
    /// hands over what other threads queued before it, so the order of writes (and of `finish`) is the order they
    /// were made in, not the order their jobs reach the loop.
    public func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        let queueJob = state.withLock { state -> Bool in
            guard !state.closed, !state.finishing else { return false }
            state.pending.append(bytes)
            if state.handOverQueued { return false }
            state.handOverQueued = true
            return true
        }
        guard queueJob else { return }
        connection.onLoop { [self] in handOver() }
    }

    /// Hands the queued chunks to the connection, in order. Loop thread only.
    private func handOver() {
        let chunks = state.withLock { state -> [[UInt8]] in
            defer {
                state.pending = []
                state.handOverQueued = false
            }
            return state.closed ? [] : state.pending
        }
        for chunk in chunks { connection.writeChunk(chunk, for: exchange, framed: framed) }
    }

    /// Runs `handler` on the loop once no more than `limit` bytes wait to be written (at once if that is so now):
    /// how a writer keeps pace with a slow client instead of queueing what it produces. One handler waits at a
    /// time (a new one replaces it); it is dropped if the stream closes first. Loop thread only.
    public func whenQueued(atMost limit: Int, _ handler: @escaping @Sendable () -> Void) {
        connection.loop.eventLoop.preconditionInEventLoop()
        guard !isClosed else { return }
        if connection.queuedBytes <= limit { return handler() }
        state.withLock { $0.drained = (limit, handler) }
    }

    /// Called by the connection when queued bytes were written: runs the waiting `whenQueued` handler if its limit
    /// is met. Loop thread only.
    func queueShrank(to queued: Int) {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            guard let drained = state.drained, queued <= drained.limit else { return nil }
            state.drained = nil
            return drained.handler
        }
        handler?()
    }

    /// Ends the stream; the connection then serves its next request (or closes if the request asked it to).
    public func finish() {
        finish(closingConnection: false)
    }

    /// Ends the stream. With `closingConnection`, the connection closes once what was written is sent, and at
    /// the latest after `Connection.closeGraceMs` if the client does not read it (a client too slow for a stream
    /// must not hold its memory).
    public func finish(closingConnection: Bool) {
        state.withLock { $0.finishing = true }
        let connection = self.connection
        connection.onLoop { [self] in
            handOver()
            guard markClosed() else { return }
            connection.finishStream(self, closing: closingConnection)
        }
    }

    /// Marks the stream closed and runs the close handler; returns false if it was already closed. Loop thread only.
    @discardableResult
    func markClosed() -> Bool {
        let handler = state.withLock { state -> (@Sendable () -> Void)?? in
            if state.closed { return nil }
            state.closed = true
            state.drained = nil
            state.pending = []
            defer { state.onClose = nil }
            return .some(state.onClose)
        }
        guard let handler else { return false }
        handler?()
        return true
    }
}
