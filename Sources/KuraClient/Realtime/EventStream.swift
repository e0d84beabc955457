import Foundation
internal import KuraModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One message of a Server-Sent Events stream: a dispatched event (`event`, `data`) or an id-only block that
/// just moves the stream position forward.
struct ServerSentEvent: Sendable, Equatable {
    /// `event:` (`"message"` when absent); `nil` for an id-only block.
    var event: String?
    var data: String
    /// The `id:` of this block, if it had one.
    var id: String?
}

/// Incremental parser of `text/event-stream` bytes (the WHATWG rules: one leading byte order mark ignored, `\n`,
/// `\r\n` or `\r` line ends, `:` comments, multi-line `data:`, an optional space after the colon).
struct ServerSentEventParser {
    private var line: [UInt8] = []
    private var lastWasCR = false
    /// How many bytes of a leading byte order mark (EF BB BF) were read; `nil` once past the stream's start.
    private var byteOrderMark: Int? = 0
    private var event: String?
    private var data: [String] = []
    private var id: String?

    /// Feeds bytes; returns the messages they complete.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var out: [ServerSentEvent] = []
        for byte in bytes {
            if let seen = byteOrderMark {
                let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
                if byte == mark[seen] {
                    byteOrderMark = seen + 1 < mark.count ? seen + 1 : nil
                    continue
                }
                // Not a byte order mark after all: its first bytes are text.
                byteOrderMark = nil
                line.append(contentsOf: mark[..<seen])
            }
            if lastWasCR {
                lastWasCR = false
                if byte == 0x0A { continue }
            }
            if byte == 0x0A || byte == 0x0D {
                lastWasCR = byte == 0x0D
                if let message = endLine() { out.append(message) }
            } else {
                line.append(byte)
            }
        }
        return out
    }

    private mutating func endLine() -> ServerSentEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else {
            // A blank line ends the block.
            defer {
                event = nil
                data = []
                id = nil
            }
            if !data.isEmpty {
                return ServerSentEvent(event: event ?? "message", data: data.joined(separator: "\n"), id: id)
            }
            if let id { return ServerSentEvent(event: nil, data: "", id: id) }
            return nil
        }
        if line.first == UInt8(ascii: ":") { return nil }
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        let field = String(decoding: line[..<colon], as: UTF8.self)
        var valueStart = colon < line.endIndex ? colon + 1 : colon
        if valueStart < line.endIndex, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = String(decoding: line[valueStart...], as: UTF8.self)
        switch field {
        case "event": event = value
        case "data": data.append(value)
        // By bytes: `contains("\0")` compares Characters, and a NUL followed by a combining mark is one Character
        // that is not "\0", so such an id got through (the WHATWG rules ignore any id holding U+0000).
        case "id" where !value.utf8.contains(0): id = value
        default: break
        }
        return nil
    }
}

/// A streaming HTTP GET read chunk by chunk through a `URLSessionDataDelegate` (Linux's URLSession has no
/// `bytes(for:)`), delivered as an `AsyncStream`. One session per stream: the delegate belongs to its session.
final class EventStreamRequest: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // `@unchecked`: URLSession calls the delegate on its serial delegate queue, the only place the parser and status
    // are touched; `session` is set before the task starts.
    enum Update: Sendable {
        /// The response head arrived.
        case opened(status: Int)
        case message(ServerSentEvent)
        /// The stream ended: `nil` when the server closed it, else the failure. For a 4xx/5xx answer, the body's
        /// error.
        case closed((any Error)?)
    }

    let updates: AsyncStream<Update>
    private let continuation: AsyncStream<Update>.Continuation
    private var session: URLSession?
    // Touched only on the session's serial delegate queue.
    private var parser = ServerSentEventParser()
    private var status = 0
    private var errorBody = Data()
    /// `ProcessInfo.systemUptime` (monotonic) of the last bytes received.
    private let activity = Locked(ProcessInfo.processInfo.systemUptime)

    /// When bytes last arrived (heartbeats included).
    var lastActivity: TimeInterval { activity.current }

    init(request: URLRequest) {
        (updates, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        // The stream is meant to stay open; a dead one is noticed by the missing heartbeats instead.
        configuration.timeoutIntervalForRequest = 7 * 24 * 3600
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        self.session = session
        session.dataTask(with: request).resume()
    }

    /// Set once the task has completed.
    private let completed = Locked(false)

    /// Whether the stream has ended (the server closed it, it failed, or it was cancelled).
    var isCompleted: Bool { completed.current }

    /// Closes the stream (the session lets go of its delegate). A stream that has already completed is left
    /// alone: cancelling a task while it completes is what traps in swift-corelibs-foundation (`Transport`'s
    /// `deinit` says more). So the SDK cancels only streams the server is not ending: it never cancels after
    /// `.closed` (the flag is set before that update goes out), and after a last event (`overflow`,
    /// `auth_revoked`) it waits for the server's close (`ListenerHub.consume`). What is left is a client closing
    /// a stream at the very moment the server ends it for its own reasons (a shutdown).
    func cancel() {
        if completed.current { return }
        session?.invalidateAndCancel()
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        status = (response as? HTTPURLResponse)?.statusCode ?? 0
        continuation.yield(.opened(status: status))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        activity.withLock { $0 = ProcessInfo.processInfo.systemUptime }
        guard status < 400 else {
            errorBody.append(data)
            return
        }
        for message in parser.feed(data) { continuation.yield(.message(message)) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        // Before `.closed` is delivered: its reader closes the stream at once, and that `cancel()` must see a
        // completed task and leave it alone.
        completed.withLock { $0 = true }
        if status >= 400 {
            let body = try? JSONText.decode(errorBody)
            continuation.yield(.closed(Transport.serverError(status: status, body: body, headers: [:])))
        } else if let error {
            continuation.yield(
                .closed(Transport.networkError(error, url: task.originalRequest?.url ?? URL(fileURLWithPath: "/"))))
        } else {
            continuation.yield(.closed(nil))
        }
        continuation.finish()
        session.finishTasksAndInvalidate()
    }
}
