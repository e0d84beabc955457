import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Errors of the raw test client.
enum RawClientError: Error, CustomStringConvertible {
    case system(String, Int32)
    case timedOut(received: [UInt8])
    case closedEarly(received: [UInt8])
    case malformedResponse(String)

    var description: String {
        switch self {
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        case .timedOut(let bytes): "timed out; had \(bytes.count) bytes: \(String(decoding: bytes, as: UTF8.self))"
        case .closedEarly(let bytes):
            "closed early after \(bytes.count) bytes: \(String(decoding: bytes, as: UTF8.self))"
        case .malformedResponse(let why): "malformed response: \(why)"
        }
    }
}

/// A blocking TCP client over Glibc sockets that speaks raw bytes, so tests can send exactly what they mean
/// (malformed, split, pipelined) and read exactly what the server wrote. Every read has a deadline.
final class RawClient {
    private var fd: Int32
    /// Bytes received but not yet consumed by `readResponse`.
    private(set) var pending: [UInt8] = []
    /// Whether the server closed (EOF or reset).
    private(set) var peerClosed = false

    /// Connects to 127.0.0.1:`port`; throws `.system("connect", ECONNREFUSED)` when nothing listens.
    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawClientError.system("socket", errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            let code = errno
            // Through close(), which forgets the descriptor: deinit runs after a throwing init too.
            close()
            throw RawClientError.system("connect", code)
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close() }

    func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    /// Half-closes: the server sees EOF but can still answer.
    func shutdownWrite() { Glibc.shutdown(fd, Int32(SHUT_WR)) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw RawClientError.system("send", errno)
            }
            offset += n
        }
    }

    /// Waits up to `timeout` for more bytes; returns false on timeout. Sets `peerClosed` on EOF or reset.
    @discardableResult
    func receiveMore(timeout: Duration) -> Bool {
        guard !peerClosed else { return false }
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
    func readResponse(head: Bool = false, timeout: Duration = .seconds(3)) throws -> RawResponse {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let (response, used) = try RawResponse.parse(pending, head: head, complete: peerClosed) {
                pending.removeFirst(used)
                return response
            }
            if peerClosed { throw RawClientError.closedEarly(received: pending) }
            let left = deadline - ContinuousClock.now
            if left <= .zero { throw RawClientError.timedOut(received: pending) }
            receiveMore(timeout: min(left, .milliseconds(100)))
        }
    }

    /// Reads until the received bytes contain `marker`.
    func readUntil(_ marker: String, timeout: Duration = .seconds(3)) throws {
        let needle = Array(marker.utf8)
        let deadline = ContinuousClock.now + timeout
        while pending.firstRange(of: needle) == nil {
            if peerClosed { throw RawClientError.closedEarly(received: pending) }
            let left = deadline - ContinuousClock.now
            if left <= .zero { throw RawClientError.timedOut(received: pending) }
            receiveMore(timeout: min(left, .milliseconds(100)))
        }
    }

    /// Whether the server closes the connection within `timeout` (bytes arriving meanwhile are kept).
    func closes(within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !peerClosed {
            let left = deadline - ContinuousClock.now
            if left <= .zero { return false }
            receiveMore(timeout: min(left, .milliseconds(50)))
        }
        return true
    }
}

/// A response as bytes on the wire, split into its parts.
struct RawResponse {
    var version: String
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// `code` of a `{"error":{"code":…,"message":…}}` body.
    var errorCode: String? { JSONBody.errorField("code", in: body) }
    var errorMessage: String? { JSONBody.errorField("message", in: body) }

    /// Parses one response from the front of `bytes`; nil if more bytes are needed. With `complete` (the peer
    /// closed), a response without a length ends at the end of `bytes`.
    static func parse(_ bytes: [UInt8], head: Bool, complete: Bool) throws -> (RawResponse, Int)? {
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let lines = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = lines[0].split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw RawClientError.malformedResponse("status line '\(lines[0])'")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else {
                throw RawClientError.malformedResponse("header '\(line)'")
            }
            headers.append(
                (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var response = RawResponse(version: String(statusLine[0]), status: status, headers: headers, body: [])
        var at = end.upperBound
        if head || status < 200 || status == 204 || status == 304 { return (response, at) }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            while true {
                guard let lineEnd = bytes[at...].firstRange(of: Array("\r\n".utf8)) else { return nil }
                let sizeText = String(decoding: bytes[at..<lineEnd.lowerBound], as: UTF8.self)
                guard let size = Int(sizeText.split(separator: ";")[0], radix: 16) else {
                    throw RawClientError.malformedResponse("chunk size '\(sizeText)'")
                }
                let dataEnd = lineEnd.upperBound + size
                guard bytes.count >= dataEnd + 2 else { return nil }
                response.body += bytes[lineEnd.upperBound..<dataEnd]
                at = dataEnd + 2
                if size == 0 { return (response, at) }
            }
        }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            guard bytes.count >= at + length else { return nil }
            response.body = Array(bytes[at..<at + length])
            return (response, at + length)
        }
        guard complete else { return nil }
        response.body = Array(bytes[at...])
        return (response, bytes.count)
    }
}
