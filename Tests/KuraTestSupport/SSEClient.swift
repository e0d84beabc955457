import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One Server-Sent Event as a browser's EventSource dispatches it.
public struct SSEEvent: CustomStringConvertible, Sendable {
    /// `event:` (default `message`).
    public var name: String
    /// The stream's last event id when the event was dispatched (EventSource's `lastEventId`).
    public var lastEventID: String
    /// Whether this event carried an `id:` line itself.
    public var hasID: Bool
    public var data: String

    /// `data` parsed as a JSON object.
    public var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:]
    }
    public var target: String? { json["target"] as? String }
    public var description: String { "\(name) id=\(lastEventID) \(data.prefix(200))" }
}

/// A listen stream over a raw socket: sends `GET /api/listen…`, decodes the chunked body and parses events the way
/// the HTML standard says EventSource does (an event is dispatched only at its blank line; an `id:` line sets the
/// last event id, also in a block without data). Can be cut at any byte to simulate a dropped connection.
public final class SSEClient {
    private var fd: Int32 = -1
    private var raw: [UInt8] = []
    /// Decoded body bytes not yet parsed into lines.
    private var body: [UInt8] = []
    private var chunkRemaining = 0
    private var inChunkData = false
    public private(set) var ended = false
    /// Response status and head.
    public private(set) var status = 0
    public private(set) var head = ""
    /// The EventSource `lastEventId`.
    public private(set) var lastEventID = ""
    /// Heartbeat comments seen.
    public private(set) var comments = 0
    /// Bytes of the body received so far.
    public private(set) var bodyBytes = 0
    private var eventName = ""
    private var data: [String] = []
    private var idBuffer = ""
    private var sawID = false
    private var ready: [SSEEvent] = []

    /// Connects and sends the request; `headers` are added as given. Reads the response head.
    public init(port: Int, path: String, headers: [(String, String)] = [], receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPClientError.system("socket", errno) }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let code = connectToLoopback(fd, port: port)
        guard code == 0 else {
            close()
            throw HTTPClientError.system("connect", code)
        }
        var text = "GET \(path) HTTP/1.1\r\nHost: test\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        let separator = Array("\r\n\r\n".utf8)
        let deadline = Date(timeIntervalSinceNow: 10)
        while raw.firstRange(of: separator) == nil {
            guard try receive(until: deadline) else { throw HTTPClientError.timedOut(received: raw) }
        }
        let end = raw.firstRange(of: separator)!
        head = String(decoding: raw[..<end.lowerBound], as: UTF8.self)
        status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        raw.removeFirst(end.upperBound)
    }

    deinit { close() }

    /// Closes the socket at once (a dropped connection from the server's point of view).
    public func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    /// The body of a non-stream answer (an error), read up to its `Content-Length`.
    public func errorBody() throws -> [String: Any] {
        let length =
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        let deadline = Date(timeIntervalSinceNow: 5)
        while raw.count < length { guard try receive(until: deadline) else { break } }
        return (try? JSONSerialization.jsonObject(with: Data(raw.prefix(length)))) as? [String: Any] ?? [:]
    }

    /// The next event, waiting up to `timeout` seconds; `nil` on timeout or when the stream ended.
    /// `maxRead` caps each read (to cut the stream at arbitrary bytes together with `cutAfter`).
    public func next(timeout: Double = 10, maxRead: Int = 65536) throws -> SSEEvent? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while ready.isEmpty {
            if ended { return nil }
            decode()
            if !ready.isEmpty { break }
            guard try receive(until: deadline, maxRead: maxRead) else { return nil }
        }
        return ready.removeFirst()
    }

    /// The next event named `name` (others are skipped and returned in `skipped`).
    public func next(_ name: String, timeout: Double = 10, skipped: inout [SSEEvent]) throws -> SSEEvent? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while let event = try next(timeout: max(0, deadline.timeIntervalSinceNow)) {
            if event.name == name { return event }
            skipped.append(event)
        }
        return nil
    }

    /// The next event named `name`, failing if another comes first.
    public func expect(_ name: String, timeout: Double = 10) throws -> SSEEvent {
        guard let event = try next(timeout: timeout) else {
            throw TestFailure("no '\(name)' event within \(timeout) s")
        }
        guard event.name == name else { throw UnexpectedEvent(expected: name, event: event) }
        return event
    }

    /// Events arriving within `seconds` (for checking that nothing comes).
    public func drain(for seconds: Double) throws -> [SSEEvent] {
        var events: [SSEEvent] = []
        let deadline = Date(timeIntervalSinceNow: seconds)
        while let event = try next(timeout: max(0, deadline.timeIntervalSinceNow)) { events.append(event) }
        return events
    }

    /// Reads once (up to `maxRead` bytes); false on timeout or end of stream.
    private func receive(until deadline: Date, maxRead: Int = 65536) throws -> Bool {
        guard fd >= 0 else { return false }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let wait = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
        let ready = poll(&poller, 1, wait)
        guard ready > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: max(1, maxRead))
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 {
            ended = true
            return false
        }
        raw += buffer[..<n]
        return true
    }

    /// Turns the chunked framing in `raw` into body bytes, and body lines into events.
    private func decode() {
        while !raw.isEmpty {
            if inChunkData {
                let take = min(chunkRemaining, raw.count)
                body += raw[..<take]
                bodyBytes += take
                raw.removeFirst(take)
                chunkRemaining -= take
                if chunkRemaining == 0 { inChunkData = false }
                continue
            }
            // Between chunks: "\r\n" after data, then "<hex>\r\n".
            guard let lineEnd = raw.firstRange(of: Array("\r\n".utf8)) else { break }
            let line = String(decoding: raw[..<lineEnd.lowerBound], as: UTF8.self)
            raw.removeFirst(lineEnd.upperBound)
            if line.isEmpty { continue }
            guard let size = Int(line, radix: 16) else { continue }
            if size == 0 {
                ended = true
                break
            }
            chunkRemaining = size
            inChunkData = true
        }
        while let newline = body.firstIndex(of: 0x0A) {
            var line = String(decoding: body[..<newline], as: UTF8.self)
            body.removeFirst(newline + 1)
            if line.hasSuffix("\r") { line.removeLast() }
            process(line)
        }
    }

    private func process(_ line: String) {
        if line.isEmpty {
            // Dispatch: the id buffer becomes the last event id even when there is no data.
            lastEventID = idBuffer
            defer {
                data = []
                eventName = ""
                sawID = false
            }
            guard !data.isEmpty else { return }
            ready.append(
                SSEEvent(
                    name: eventName.isEmpty ? "message" : eventName, lastEventID: lastEventID, hasID: sawID,
                    data: data.joined(separator: "\n")))
            return
        }
        if line.hasPrefix(":") {
            comments += 1
            return
        }
        let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let field = String(parts[0])
        var value = parts.count > 1 ? String(parts[1]) : ""
        if value.hasPrefix(" ") { value.removeFirst() }
        switch field {
        case "event": eventName = value
        case "data": data.append(value)
        case "id":
            idBuffer = value
            sawID = true
        default: break
        }
    }
}

public struct UnexpectedEvent: Error, CustomStringConvertible {
    public let expected: String
    public let event: SSEEvent
    public var description: String { "expected '\(expected)', got \(event)" }
}
