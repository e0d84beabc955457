// libFuzzer harness for the connection state machine (KuraHTTP's Connection over a real libuv server on loopback):
// the byte stream a client sends, pipelined requests included, written whole and cut at fuzzer-chosen points,
// then half-closed. The responder answers some requests at once, some later from a worker thread (so answers
// complete out of order and wait, parked, for the ones before them) and some as a chunked stream that holds the
// connection while requests queue behind it. The input is (control, stream) as in FuzzSupport.swift.
//
// Properties, for both feeds:
// - the server answers exactly the requests a standalone RequestParser finds in the stream, in the order they were
//   sent, each once (every answer names its request), followed by the parser's error status when the stream goes
//   bad, and then closes: the client reads to the end and never waits forever;
// - the two feeds read the same answers (where the reads fall never changes them), `100 Continue` aside, which is
//   sent only when nothing is in flight at the moment the header arrives;
// - the server then still answers a new connection.
import KuraCore
import KuraHTTP

#if canImport(Glibc)
    import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func connectionFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let (control, stream) = splitInput(data, size)
    let expectation = Expectation(stream)
    var sent = stream
    var expected = expectation.answers
    // How the client ends, when the server does not end the connection itself: by half-closing (always after a
    // request cut short), or with a last request that asks the server to close after answering it.
    let halfClose = !expectation.serverCloses && (expectation.cutShort || (control.first ?? 0) & 1 == 1)
    if !expectation.serverCloses && !halfClose {
        sent += lastRequest
        expected.append("GET /last")
    }
    // A client's close ends an open stream (it is how a listener goes away), and with it the answers queued
    // behind the stream; and more than `maxPipelinedRequests` requests piled up behind an open stream close the
    // connection. Answers may then be missing at the end, depending on when the close or the pile-up happens.
    let strict = !(expectation.streams && (halfClose || expected.count > maxPipelinedRequests))
    let whole = normalized(send(sent, pieces: [0..<sent.count], halfClose: halfClose))
    check(whole, expected, strict: strict, "whole")
    let cutPieces = pieces(of: sent.count, control: control)
    if cutPieces.count > 1 {
        let cut = normalized(send(sent, pieces: cutPieces, halfClose: halfClose))
        check(cut, expected, strict: strict, "split \(cutPieces.map(\.count))")
        if strict {
            require(
                sameAnswers(whole, cut), "a split stream was answered differently:\nwhole:\n\(whole)\nsplit:\n\(cut)")
        }
    }
    let probe = Array("GET /alive HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n".utf8)
    let alive = normalized(send(probe, pieces: [0..<probe.count], halfClose: false))
    require(answers(in: alive) == ["GET /alive"], "the server stopped answering new connections: \(alive)")
    return 0
}

private let lastRequest = Array("GET /last HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n".utf8)

// MARK: The server

/// Small limits, as in the parser's harness, so that streams reach 431 and 413; a short pipeline, so that reads
/// pause and resume.
private let limits = RequestParser.Limits(maxHeaderBytes: 600, maxBodyBytes: 1000)
private let maxPipelinedRequests = 8

/// Started at the first input and kept for the whole run.
private let server: HTTPServer = {
    var configuration = HTTPServerConfiguration()
    configuration.host = "127.0.0.1"
    configuration.port = 0
    configuration.eventLoops = 1
    configuration.workerThreads = 2
    configuration.limits = limits
    configuration.maxPipelinedRequests = maxPipelinedRequests
    configuration.metrics = false
    let server = HTTPServer(configuration: configuration, responder: Echo(), logger: Logger(level: .error))
    do { try server.start() } catch { fatalError("the harness's server did not start: \(error)") }
    return server
}()

/// Answers every request with `X-Echo: METHOD TARGET` (the target hex-escaped outside printable ASCII) and the size
/// of its body. A path starting `/later` is answered from a worker after a pause that depends on the target; one
/// starting `/stream` is a chunked stream of three chunks that a worker finishes.
private struct Echo: HTTPResponder {
    func respond(to request: Request, environment: RequestEnvironment) -> Response {
        let headers: HTTPHeaders = ["X-Echo": "\(request.method) \(escaped(request.target))"]
        let body = Array("body \(request.body.count)\r\n".utf8)
        if request.target.hasPrefix("/later") {
            let pause = UInt32(request.target.utf8.count % 4) * 300
            return environment.offload {
                usleep(pause)
                return Response(status: 200, headers: headers, body: body)
            }
        }
        if request.target.hasPrefix("/stream") {
            let workers = environment.workers
            return .stream(headers: headers) { stream in
                stream.write(Array("one\n".utf8))
                do {
                    try workers.submit(on: stream.eventLoop) {
                        usleep(200)
                        stream.write(Array("two\n".utf8))
                    } completion: { _ in
                        stream.write(Array("three\n".utf8))
                        stream.finish()
                    }
                } catch {
                    stream.finish()
                }
            }
        }
        return Response(status: 200, headers: headers, body: body)
    }
}

private func escaped(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
        if byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "%") {
            out.unicodeScalars.append(Unicode.Scalar(byte))
        } else {
            out += "%" + String(byte, radix: 16)
        }
    }
    return out
}

// MARK: What the parser says the server must answer

/// What a standalone parser with the server's limits finds in a stream, and so what the server must answer.
private struct Expectation {
    /// `METHOD TARGET` for each request, then `status N` when the stream goes bad (a stream cut short only by the
    /// client's close is not answered: the server just closes).
    var answers: [String] = []
    /// Whether the server closes after the answers (an error, a request that closes, an upgrade).
    var serverCloses = false
    /// Whether the stream ends inside a request.
    var cutShort = false
    /// Whether one of the requests is answered with a stream.
    var streams = false

    init(_ stream: [UInt8]) {
        let parser = RequestParser(limits: limits)
        var answers: [String] = []
        parser.onEvent = { event in
            if case .request(let request) = event { answers.append("\(request.method) \(escaped(request.target))") }
        }
        switch stream.withUnsafeBytes({ parser.feed($0) }) {
        case .consumed: cutShort = parser.inMessage
        case .stopped: serverCloses = true
        case .failed(let error):
            answers.append("status \(error.status)")
            serverCloses = true
        }
        streams = answers.contains { $0.hasPrefix("GET /stream") || $0.hasPrefix("HEAD /stream") }
        self.answers = answers
    }
}

/// Checks that `answer` answers `expected` in order: all of them, or (not `strict`) the first few.
private func check(_ answer: String, _ expected: [String], strict: Bool, _ feed: String) {
    let got = answers(in: answer)
    let fits =
        strict
        ? got.count == expected.count && zip(got, expected).allSatisfy(sameAnswer)
        : got.count <= expected.count && zip(got, expected).allSatisfy(sameAnswer)
    require(
        fits,
        "the \(feed) stream's answers are not the parser's requests in order:\nexpected: \(expected)\ngot: \(got)\n\(answer)"
    )
}

/// What the answer text says was answered: each `X-Echo` header, and the status of an answer without one (the
/// server's own error answers).
private func answers(in text: String) -> [String] {
    var result: [String] = []
    var status: String?
    for line in text.split(separator: "\r\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("HTTP/1.") {
            if let status { result.append("status \(status)") }
            status = String(line.split(separator: " ").dropFirst().first ?? "?")
        } else if line.hasPrefix("X-Echo: "), status != nil {
            result.append(String(line.dropFirst("X-Echo: ".count)))
            status = nil
        }
    }
    if let status { result.append("status \(status)") }
    return result
}

/// Equal; or two refusals where one is for a size limit (431, 413). A request both over a limit and malformed may
/// get either answer, as in the parser's harness: http-parser reports the bytes of a header value only once the
/// value ends or the read does, so where the reads fall decides which fault is seen first.
private func sameAnswer(_ a: String, _ b: String) -> Bool {
    a == b || (a.hasPrefix("status ") && b.hasPrefix("status ") && (isLimit(a) || isLimit(b)))
}

private func isLimit(_ status: String) -> Bool { status.hasSuffix(" 431") || status.hasSuffix(" 413") }

/// Two normalized answer texts that are the same, or differ only in a last refusal as `sameAnswer` allows.
private func sameAnswers(_ a: String, _ b: String) -> Bool {
    if a == b { return true }
    guard let x = a.ranges(of: "HTTP/1.").last, let y = b.ranges(of: "HTTP/1.").last,
        a[..<x.lowerBound] == b[..<y.lowerBound]
    else { return false }
    let statusA = answers(in: String(a[x.lowerBound...])), statusB = answers(in: String(b[y.lowerBound...]))
    return statusA.count == 1 && statusB.count == 1 && sameAnswer(statusA[0], statusB[0])
}

/// The server's refusal as its status line and error code: which of two faults in a request is named first may
/// depend on where a read ends (a header line cut short is checked before the character that makes it invalid),
/// so the message, and with it the length, may differ; the code does not.
private func refusalShortened(_ text: String) -> String {
    guard let start = text.ranges(of: "HTTP/1.").last else { return text }
    let tail = text[start.lowerBound...]
    guard !tail.contains("X-Echo: "), let code = tail.firstRange(of: "\"code\":\""),
        let end = tail[code.upperBound...].firstIndex(of: "\""), let line = tail.firstRange(of: "\r\n")
    else { return text }
    return text[..<start.lowerBound] + tail[..<line.lowerBound] + "\r\ncode " + tail[code.upperBound..<end]
}

/// The answer without what may differ between two runs: the `Date` and `X-Request-Id` headers, interim
/// `100 Continue` answers, and a refusal's message (`refusalShortened`).
private func normalized(_ bytes: [UInt8]) -> String {
    let text = String(decoding: bytes, as: UTF8.self).replacing("HTTP/1.1 100 Continue\r\n\r\n", with: "")
    return refusalShortened(
        text.split(separator: "\r\n", omittingEmptySubsequences: false)
            .filter { !$0.lowercased().hasPrefix("date: ") && !$0.lowercased().hasPrefix("x-request-id: ") }
            .joined(separator: "\r\n"))
}

// MARK: The client

/// Connects, writes `stream` in `pieces` (pausing briefly between them so that each is its own read), half-closes
/// if asked to, and reads everything the server sends until it closes.
private func send(_ stream: [UInt8], pieces: [Range<Int>], halfClose: Bool) -> [UInt8] {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    require(fd >= 0, "socket: \(errno)")
    defer { close(fd) }
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    // A server that never closes fails the run instead of hanging it.
    var wait = timeval(tv_sec: 20, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(server.port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    if connected != 0 && errno == EINTR {
        // A signal (libFuzzer's timeout alarm fires every few seconds) interrupted the connect; the connection is
        // still being made: wait until the socket is writable and take its outcome.
        var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        while poll(&ready, 1, 20_000) < 0 && errno == EINTR {}
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        connected = ready.revents & Int16(POLLOUT) != 0 && error == 0 ? 0 : -1
        errno = error
    }
    require(connected == 0, "connect: \(errno)")
    var open = true
    for (index, piece) in pieces.enumerated() where open {
        if index > 0 { usleep(100) }
        var offset = piece.lowerBound
        while offset < piece.upperBound {
            let written = stream[offset..<piece.upperBound].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                open = false  // the server closed after an error answer; what it sent is still to be read
                break
            }
            offset += written
        }
    }
    if halfClose { shutdown(fd, Int32(SHUT_WR)) }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16384)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            received += buffer[0..<count]
        } else if count == 0 {
            break
        } else if errno == EINTR {
            continue
        } else {
            require(errno != EAGAIN && errno != EWOULDBLOCK, "the server did not close within 20 s:\n\(received)")
            break  // a reset after the server's lingering close: what arrived before it is the answer
        }
    }
    return received
}
