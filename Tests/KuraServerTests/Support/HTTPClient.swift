import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// This file is shared (by symlink) with KuraEndToEndTests: Foundation and Glibc only, nothing from Kura.

/// One HTTP response as read off the socket.
struct HTTPResponse: CustomStringConvertible {
    var status = 0
    /// The status line and headers, without the blank line.
    var head = ""
    var bodyBytes: [UInt8] = []

    var body: String { String(decoding: bodyBytes, as: UTF8.self) }

    func header(_ name: String) -> String? {
        for line in head.split(separator: "\r\n").dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// The body parsed as a JSON object (empty if it is not one).
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(bodyBytes), options: [.fragmentsAllowed])) as? [String: Any]
            ?? [:]
    }

    /// `code` of an `{"error":{"code":…,"message":…}}` body.
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }

    var description: String { "\(status) \(body.prefix(300))" }
}

/// Errors of the test HTTP client.
struct HTTPClientError: Error, CustomStringConvertible {
    let call: String
    let code: Int32
    init(_ call: String, code: Int32 = errno) {
        self.call = call
        self.code = code
    }
    var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
}

/// Connects the socket `fd` to 127.0.0.1:`port`, from the loopback address `source` when given (any of
/// 127.0.0.0/8, so a test can play several clients); returns 0, or the `errno` of the failure.
func connectToLoopback(_ fd: Int32, port: Int, source: String? = nil) -> Int32 {
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

/// A blocking HTTP/1.1 client connection to 127.0.0.1 over a plain socket, kept alive between requests. Test
/// targets cannot import each other, so this is a small relative of KuraHTTPTests' `RawClient`: enough to send
/// any method, headers and body, raw bytes (pipelining), and to read `Content-Length`-framed responses.
final class HTTPConnection {
    private var fd: Int32
    private var pending: [UInt8] = []
    private var closedByPeer = false

    /// Connects to 127.0.0.1:`port` (from the loopback address `source`, when given); reads give up after
    /// `timeout` seconds.
    init(port: Int, timeout: Int = 5, source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPClientError("socket") }
        var interval = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let code = connectToLoopback(fd, port: port, source: source)
        guard code == 0 else {
            // Through close(), which forgets the descriptor: deinit runs after a throwing init too, and closing
            // the number twice could close another test's socket that reused it (seen as EBADF in a parallel run).
            close()
            throw HTTPClientError("connect", code: code)
        }
    }

    deinit { close() }

    func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    /// The bytes of one request; a body gets `Content-Length`.
    static func encode(
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
    func send(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) throws -> HTTPResponse {
        try write(Self.encode(method, target, headers: headers, body: body))
        return try readResponse(head: method == "HEAD")
    }

    /// Writes raw bytes (one or several requests).
    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw HTTPClientError("send")
            }
            offset += n
        }
    }

    /// Reads the next response: framed by `Content-Length`, bodiless (204, 304, HEAD), or up to EOF.
    func readResponse(head: Bool = false) throws -> HTTPResponse {
        let separator = Array("\r\n\r\n".utf8)
        while pending.firstRange(of: separator) == nil { try receive() }
        let end = pending.firstRange(of: separator)!
        var response = HTTPResponse()
        response.head = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
        response.status = Int(response.head.split(separator: " ").dropFirst().first ?? "") ?? 0
        pending.removeFirst(end.upperBound)
        if head || response.status == 204 || response.status == 304 || response.status < 200 { return response }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            while pending.count < length { try receive() }
            response.bodyBytes = Array(pending[..<length])
            pending.removeFirst(length)
        } else {
            while !closedByPeer { try receive(allowEOF: true) }
            response.bodyBytes = pending
            pending = []
        }
        return response
    }

    private func receive(allowEOF: Bool = false) throws {
        guard !closedByPeer else { throw HTTPClientError("recv (connection closed)", code: ECONNRESET) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw HTTPClientError("recv") }
            if n == 0 {
                closedByPeer = true
                if allowEOF { return }
                throw HTTPClientError("recv (connection closed)", code: ECONNRESET)
            }
            pending += buffer[..<n]
            return
        }
    }
}

/// One-shot requests (`Connection: close`).
enum HTTPClient {
    static func send(
        port: Int, _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) throws -> HTTPResponse {
        let connection = try HTTPConnection(port: port)
        try connection.write(HTTPConnection.encode(method, target, headers: headers, body: body, close: true))
        return try connection.readResponse(head: method == "HEAD")
    }

    static func get(port: Int, _ target: String) throws -> HTTPResponse { try send(port: port, "GET", target) }
}
