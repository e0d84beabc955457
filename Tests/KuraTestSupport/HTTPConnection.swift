import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Errors of the test HTTP clients.
public enum HTTPClientError: Error, CustomStringConvertible {
    /// A system call failed with `errno` `code`.
    case system(String, Int32)
    /// The deadline passed; what had arrived is kept.
    case timedOut(received: [UInt8])
    /// The server closed before a whole response arrived.
    case closedEarly(received: [UInt8])
    case malformedResponse(String)

    public var description: String {
        switch self {
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        case .timedOut(let bytes): "timed out; had \(bytes.count) bytes: \(String(decoding: bytes, as: UTF8.self))"
        case .closedEarly(let bytes):
            "closed early after \(bytes.count) bytes: \(String(decoding: bytes, as: UTF8.self))"
        case .malformedResponse(let why): "malformed response: \(why)"
        }
    }
}

/// Connects the socket `fd` to 127.0.0.1:`port`, from the loopback address `source` when given (any of
/// 127.0.0.0/8, so a test can play several clients); returns 0, or the `errno` of the failure.
public func connectToLoopback(_ fd: Int32, port: Int, source: String? = nil) -> Int32 {
    if let source {
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if bound != 0 { return errno }
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    return connected == 0 ? 0 : errno
}

/// A blocking HTTP/1.1 client connection to 127.0.0.1 over a plain socket, kept alive between requests. It speaks
/// raw bytes, so tests can send exactly what they mean (malformed, split, pipelined) and read exactly what the
/// server wrote; `send(_:_:headers:body:)` builds well-formed requests. Every read has a deadline.
public final class HTTPConnection {
    private var fd: Int32
    /// Bytes received but not yet consumed by `readResponse`.
    public private(set) var pending: [UInt8] = []
    /// Whether the server closed (EOF or reset).
    public private(set) var peerClosed = false
    /// How long a read waits when the call names no timeout.
    public let timeout: Duration

    /// Connects to 127.0.0.1:`port` (from the loopback address `source`, when given); throws
    /// `.system("connect", ECONNREFUSED)` when nothing listens.
    public init(port: Int, timeout: Duration = .seconds(5), source: String? = nil) throws {
        self.timeout = timeout
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPClientError.system("socket", errno) }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let code = connectToLoopback(fd, port: port, source: source)
        guard code == 0 else {
            // Through close(), which forgets the descriptor: deinit runs after a throwing init too, and closing
            // the number twice could close another test's socket that reused it (seen as EBADF in a parallel run).
            close()
            throw HTTPClientError.system("connect", code)
        }
    }

    deinit { close() }

    public func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    /// Half-closes: the server sees EOF but can still answer.
    public func shutdownWrite() { Glibc.shutdown(fd, Int32(SHUT_WR)) }

    /// The bytes of one request; a body gets `Content-Length`.
    public static func encode(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        close: Bool = false
    ) -> [UInt8] {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: test\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.count)\r\n" }
        if close { text += "Connection: close\r\n" }
        return Array((text + "\r\n").utf8) + (body ?? [])
    }

    /// Sends one request and reads its response.
    public func send(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) throws -> HTTPResponse {
        try send(Self.encode(method, target, headers: headers, body: body))
        return try readResponse(head: method == "HEAD")
    }

    /// Writes `text` as it is (one or several requests, or a part of one).
    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Writes raw bytes (one or several requests, or a part of one).
    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw HTTPClientError.system("send", errno)
            }
            offset += n
        }
    }

    /// Waits up to `timeout` for more bytes; returns false on timeout. Sets `peerClosed` on EOF or reset.
    @discardableResult
    public func receiveMore(timeout: Duration) -> Bool {
        guard !peerClosed, fd >= 0 else { return false }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let millis = Int32(
            max(0, timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000))
        guard poll(&poller, 1, millis) > 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
        if n <= 0 {
            peerClosed = true
            return false
        }
        pending.append(contentsOf: chunk[..<n])
        return true
    }

    /// Reads one whole response (Content-Length, chunked, or up to close); `head` for responses to HEAD.
    public func readResponse(head: Bool = false, timeout: Duration? = nil) throws -> HTTPResponse {
        let deadline = ContinuousClock.now + (timeout ?? self.timeout)
        while true {
            if let (response, used) = try HTTPResponse.parse(pending, head: head, complete: peerClosed) {
                pending.removeFirst(used)
                return response
            }
            if peerClosed { throw HTTPClientError.closedEarly(received: pending) }
            let left = deadline - ContinuousClock.now
            if left <= .zero { throw HTTPClientError.timedOut(received: pending) }
            receiveMore(timeout: min(left, .milliseconds(100)))
        }
    }

    /// Reads until the received bytes contain `marker`.
    public func readUntil(_ marker: String, timeout: Duration? = nil) throws {
        let needle = Array(marker.utf8)
        let deadline = ContinuousClock.now + (timeout ?? self.timeout)
        while pending.firstRange(of: needle) == nil {
            if peerClosed { throw HTTPClientError.closedEarly(received: pending) }
            let left = deadline - ContinuousClock.now
            if left <= .zero { throw HTTPClientError.timedOut(received: pending) }
            receiveMore(timeout: min(left, .milliseconds(100)))
        }
    }

    /// Whether the server closes the connection within `timeout` (bytes arriving meanwhile are kept).
    public func closes(within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !peerClosed {
            let left = deadline - ContinuousClock.now
            if left <= .zero { return false }
            receiveMore(timeout: min(left, .milliseconds(50)))
        }
        return true
    }
}

/// One-shot requests (`Connection: close`).
public enum HTTPClient {
    public static func send(
        port: Int, _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) throws -> HTTPResponse {
        let connection = try HTTPConnection(port: port)
        try connection.send(HTTPConnection.encode(method, target, headers: headers, body: body, close: true))
        return try connection.readResponse(head: method == "HEAD")
    }

    public static func get(port: Int, _ target: String) throws -> HTTPResponse { try send(port: port, "GET", target) }
}
