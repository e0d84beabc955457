import CHTTPParser
import KuraCore
import KuraModel

/// A request as http-parser delivered it, before the engine gives it an id.
public struct ParsedRequest: Sendable {
    public var method: HTTPMethod
    public var target: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var keepAlive: Bool
    public var version: (major: Int, minor: Int)
}

/// Adapts libhttp-parser's callbacks to Swift values and enforces the request limits while parsing.
/// It knows nothing of sockets: feed it bytes, it reports events. One instance per connection.
public final class RequestParser {
    public struct Limits: Sendable {
        /// Request line plus header fields, in bytes (431 past it).
        public var maxHeaderBytes: Int
        /// Request body, in bytes (413 past it; checked against Content-Length before the body is read).
        public var maxBodyBytes: Int
        public init(maxHeaderBytes: Int = 16 * 1024, maxBodyBytes: Int = 10 * 1024 * 1024) {
            self.maxHeaderBytes = maxHeaderBytes
            self.maxBodyBytes = maxBodyBytes
        }
    }

    public enum Event {
        /// The first byte of a request arrived.
        case begin
        /// Headers are complete and the client waits for `100 Continue` before sending the body.
        case expectContinue
        /// A whole request.
        case request(ParsedRequest)
    }

    public enum Outcome: Equatable {
        /// Every byte was consumed.
        case consumed
        /// Parsing stopped after a request that closes the connection (or an upgrade); the rest is ignored.
        case stopped
        /// The input is not acceptable; answer with this error and close.
        case failed(APIError)
    }

    public let limits: Limits
    /// Receives events during `feed`.
    public var onEvent: (Event) -> Void = { _ in }
    /// Whether a request has begun and not yet completed (for the slow-client timeout).
    public private(set) var inMessage = false

    private let parser: UnsafeMutablePointer<http_parser>
    private var url: [UInt8] = []
    private var field: [UInt8] = []
    private var value: [UInt8] = []
    private var lastWasValue = false
    /// Whether the fields being read are a chunked body's trailer section, which is read and dropped.
    private var inTrailers = false
    private var headers: [(name: String, value: String)] = []
    private var body: [UInt8] = []
    private var headerBytes = 0
    private var failure: APIError?
    private var sawContentLength = false
    private var sawTransferEncoding = false
    private var sawHost = false
    private var sawAuthorization = false
    /// The buffer being fed, and the last two bytes of the one before, so callbacks can look at the bytes
    /// just before the piece they are given (http-parser does not report line terminators or folds).
    private var feedStart: UnsafeRawPointer?
    private var previousTail: (UInt8, UInt8) = (0x0D, 0x0A)
    /// Whether the bytes fed before this buffer end in a LF followed by nothing but blanks (SP, HTAB): a value
    /// piece that starts this buffer after only blanks then begins a line, however many blanks the cut fell among.
    private var previousEndsAtLineStart = true

    public init(limits: Limits) {
        self.limits = limits
        parser = .allocate(capacity: 1)
        http_parser_init(parser, HTTP_REQUEST)
        parser.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit { parser.deallocate() }

    /// Parses `bytes`, reporting events through `onEvent`.
    public func feed(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        guard failure == nil else { return .failed(failure!) }
        let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
        feedStart = bytes.baseAddress.map { UnsafeRawPointer($0) }
        let parsed = http_parser_execute(parser, settingsPointer, base, bytes.count)
        if bytes.count >= 2 {
            previousTail = (bytes[bytes.count - 2], bytes[bytes.count - 1])
        } else if bytes.count == 1 {
            previousTail = (previousTail.1, bytes[0])
        }
        // A buffer of blanks alone leaves the answer as it was.
        if let last = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 }) {
            previousEndsAtLineStart = bytes[last] == 0x0A
        }
        return outcome(parsed: parsed, of: bytes.count)
    }

    /// Tells the parser the peer closed its side; a request cut short is an error.
    public func finish() -> Outcome {
        guard failure == nil else { return .failed(failure!) }
        let parsed = http_parser_execute(parser, settingsPointer, nil, 0)
        return outcome(parsed: parsed, of: 0)
    }

    /// Convenience for tests and tools: parse a byte array.
    public func feed(_ bytes: [UInt8]) -> Outcome { bytes.withUnsafeBytes { feed($0) } }

    private func outcome(parsed: Int, of count: Int) -> Outcome {
        if let failure { return .failed(failure) }
        let code = kura_http_errno(parser)
        if code == HPE_PAUSED.rawValue { return .stopped }
        if code != HPE_OK.rawValue {
            let error: APIError
            if code == HPE_HEADER_OVERFLOW.rawValue {
                error = .headersTooLarge("request header block exceeds \(limits.maxHeaderBytes) bytes")
            } else {
                let description = String(cString: http_errno_description(http_errno(rawValue: code)))
                error = .malformedRequest("malformed HTTP request: \(description)")
            }
            failure = error
            return .failed(error)
        }
        if kura_http_upgrade(parser) != 0 || parsed < count { return .stopped }
        return .consumed
    }

    fileprivate func fail(_ error: APIError) -> Int32 {
        failure = error
        return -1
    }

    fileprivate func countHeaderBytes(_ n: Int) -> Int32 {
        headerBytes += n
        if headerBytes > limits.maxHeaderBytes {
            return fail(.headersTooLarge("request header block exceeds \(limits.maxHeaderBytes) bytes"))
        }
        return 0
    }

    /// Files the header just read. Field names with white space (`Content-Length : 5`) and a second `Host`
    /// are refused (RFC 9112 §5.1, §3.2): intermediaries disagree on them, which is how requests get smuggled.
    /// A trailer field (after a chunked body) is checked the same way and then dropped: merged into the headers it
    /// could add a header a proxy in front never saw (RFC 9110 §6.5.1), and no handler reads trailers.
    private func commitHeader() -> Int32 {
        guard !field.isEmpty || !value.isEmpty else { return 0 }
        if field.contains(0x20) || field.contains(0x09) {
            return fail(.malformedRequest("white space in a header field name"))
        }
        if inTrailers {
            guard String(validating: value, as: UTF8.self) != nil else {
                return fail(.malformedRequest("a trailer value that is not UTF-8"))
            }
            field.removeAll(keepingCapacity: true)
            value.removeAll(keepingCapacity: true)
            lastWasValue = false
            return 0
        }
        let name = String(decoding: field, as: UTF8.self)
        // Decoding with replacement would change the value the handlers see (U+FFFD for each bad byte).
        guard let text = String(validating: value, as: UTF8.self) else {
            return fail(.malformedRequest("a header value that is not UTF-8"))
        }
        if HTTPHeaders.equalsIgnoringCase(name, "content-length") { sawContentLength = true }
        if HTTPHeaders.equalsIgnoringCase(name, "transfer-encoding") { sawTransferEncoding = true }
        if HTTPHeaders.equalsIgnoringCase(name, "host") {
            if sawHost { return fail(.malformedRequest("more than one Host header")) }
            sawHost = true
        }
        // Two credentials: KuraNode would use the first, a proxy in front might check the other.
        if HTTPHeaders.equalsIgnoringCase(name, "authorization") {
            if sawAuthorization {
                return fail(.malformedRequest("more than one Authorization header"))
            }
            sawAuthorization = true
        }
        headers.append((name, text))
        field.removeAll(keepingCapacity: true)
        value.removeAll(keepingCapacity: true)
        lastWasValue = false
        return 0
    }

    fileprivate func messageBegin() -> Int32 {
        inMessage = true
        url.removeAll(keepingCapacity: true)
        headers.removeAll(keepingCapacity: true)
        body = []
        headerBytes = 0
        sawContentLength = false
        sawTransferEncoding = false
        sawHost = false
        sawAuthorization = false
        field.removeAll(keepingCapacity: true)
        value.removeAll(keepingCapacity: true)
        lastWasValue = false
        inTrailers = false
        onEvent(.begin)
        return 0
    }

    fileprivate func url(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        url.append(contentsOf: bytes)
        return countHeaderBytes(bytes.count)
    }

    /// The byte `distance` bytes before `pointer`, looking into the previous buffer's tail if needed.
    private func byte(before pointer: UnsafeRawPointer, distance: Int) -> UInt8 {
        guard let start = feedStart else { return 0 }
        let offset = pointer - start - distance
        if offset >= 0 { return start.load(fromByteOffset: offset, as: UInt8.self) }
        switch offset {
        case -1: return previousTail.1
        case -2: return previousTail.0
        default: return 0
        }
    }

    fileprivate func headerField(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        if lastWasValue, commitHeader() != 0 { return -1 }
        // A new field name starts a line, which must have ended in CRLF: a bare LF is refused, because
        // intermediaries that split lines differently disagree about where headers end.
        if field.isEmpty, let start = bytes.baseAddress.map(UnsafeRawPointer.init),
            byte(before: start, distance: 1) != 0x0A || byte(before: start, distance: 2) != 0x0D
        {
            return fail(.malformedRequest("header lines must end in CRLF"))
        }
        // Each header line also holds ": " and CRLF, which no callback reports: counted once, with the first piece of
        // its name (a name cut by a read boundary arrives in several pieces).
        let lineOverhead = field.isEmpty ? 4 : 0
        field.append(contentsOf: bytes)
        return countHeaderBytes(bytes.count + lineOverhead)
    }

    fileprivate func headerValue(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        // A value piece that starts a line (past its leading blanks) is an obs-fold continuation: refused
        // (RFC 9112 §5.2 allows that), since it can hide a header from an intermediary.
        // (A piece continued across a read boundary is preceded by a value byte, never a LF.)
        if let start = bytes.baseAddress.map(UnsafeRawPointer.init), let feedStart {
            var offset = start - feedStart - 1
            while offset >= 0, [0x20, 0x09].contains(feedStart.load(fromByteOffset: offset, as: UInt8.self)) {
                offset -= 1
            }
            // Blanks back to the start of this buffer: the bytes before it decide.
            let startsLine =
                offset >= 0 ? feedStart.load(fromByteOffset: offset, as: UInt8.self) == 0x0A : previousEndsAtLineStart
            if startsLine { return fail(.malformedRequest("obsolete line folding in a header")) }
        }
        value.append(contentsOf: bytes)
        lastWasValue = true
        return countHeaderBytes(bytes.count)
    }

    fileprivate func headersComplete() -> Int32 {
        if commitHeader() != 0 { return -1 }
        // Any field after this is a trailer (http-parser reports trailers as header fields, and no second
        // `headersComplete`).
        inTrailers = true
        // Percent-encoded bytes are checked when decoded; raw ones here, since replacing them with U+FFFD would turn
        // an ID into another one.
        if url.contains(where: { $0 >= 0x80 }), String(validating: url, as: UTF8.self) == nil {
            return fail(.malformedRequest("a request target that is not UTF-8"))
        }
        if parser.pointee.http_major != 1 {
            return fail(
                APIError.httpVersionNotSupported(
                    "only HTTP/1.0 and HTTP/1.1 are supported"))
        }
        if sawContentLength && sawTransferEncoding {
            return fail(
                .malformedRequest(
                    "a request may not carry both Content-Length and Transfer-Encoding"))
        }
        if parser.pointee.http_major == 1 && parser.pointee.http_minor >= 1
            && !headers.contains(where: { HTTPHeaders.equalsIgnoringCase($0.name, "host") })
        {
            return fail(.malformedRequest("HTTP/1.1 requests need a Host header"))
        }
        if sawTransferEncoding, let failure = transferCodingFailure() { return fail(failure) }
        let chunked = kura_http_flags(parser) & UInt32(F_CHUNKED.rawValue) != 0
        let declared = parser.pointee.content_length
        if sawContentLength && declared > UInt64(limits.maxBodyBytes) {
            return fail(.payloadTooLarge("request body of \(declared) bytes exceeds \(limits.maxBodyBytes) bytes"))
        }
        if sawContentLength, declared > 0 { body.reserveCapacity(Int(declared)) }
        if (chunked || declared > 0),
            let expect = headers.first(where: { HTTPHeaders.equalsIgnoringCase($0.name, "expect") })
        {
            guard HTTPHeaders.equalsIgnoringCase(expect.value, "100-continue") else {
                return fail(APIError.expectationFailed("unsupported Expect value"))
            }
            onEvent(.expectContinue)
        }
        return 0
    }

    /// Kura implements no transfer coding but `chunked`: any other (`gzip, chunked`) is 501 (RFC 9112 §6.1), never
    /// a body read as if it were plain chunked. A list whose last coding is not `chunked` has no knowable length
    /// (400, RFC 9112 §6.3), nor does one with `chunked` twice (RFC 9112 §7.1: applied at most once).
    private func transferCodingFailure() -> APIError? {
        let codings = headers.filter { HTTPHeaders.equalsIgnoringCase($0.name, "transfer-encoding") }
            .flatMap { $0.value.split(separator: ",", omittingEmptySubsequences: false) }
            .map { String($0).trimmingSpaces() }
        let chunked = codings.filter { HTTPHeaders.equalsIgnoringCase($0, "chunked") }.count
        if chunked == 1, codings.count == 1 { return nil }
        guard chunked == 1, let last = codings.last, HTTPHeaders.equalsIgnoringCase(last, "chunked") else {
            return .malformedRequest(
                "Transfer-Encoding must end in chunked, once, for the body's length to be known")
        }
        return APIError.notImplemented(
            "only the chunked transfer coding is supported, not: \(codings.joined(separator: ", "))")
    }

    fileprivate func bodyBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        if body.count + bytes.count > limits.maxBodyBytes {
            return fail(.payloadTooLarge("request body exceeds \(limits.maxBodyBytes) bytes"))
        }
        body.append(contentsOf: bytes)
        return 0
    }

    fileprivate func messageComplete() -> Int32 {
        // The last trailer field is still pending (fields are filed when the next one starts): check and drop it.
        if commitHeader() != 0 { return -1 }
        inMessage = false
        let method = HTTPMethod(String(cString: http_method_str(http_method(rawValue: kura_http_method(parser)))))
        let keepAlive = http_should_keep_alive(parser) != 0
        let request = ParsedRequest(
            method: method, target: String(decoding: url, as: UTF8.self),
            headers: HTTPHeaders(headers.map { ($0.name, $0.value) }), body: body, keepAlive: keepAlive,
            version: (Int(parser.pointee.http_major), Int(parser.pointee.http_minor)))
        body = []
        onEvent(.request(request))
        if !keepAlive { http_parser_pause(parser, 1) }
        return 0
    }
}

@inline(__always)
private func owner(_ parser: UnsafeMutablePointer<http_parser>?) -> RequestParser {
    Unmanaged<RequestParser>.fromOpaque(parser!.pointee.data).takeUnretainedValue()
}

@inline(__always)
private func buffer(_ at: UnsafePointer<CChar>?, _ length: Int) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: UnsafeRawPointer(at)?.assumingMemoryBound(to: UInt8.self), count: length)
}

/// The callback table, shared by every parser; callbacks find their `RequestParser` through `parser.data`.
nonisolated(unsafe) private let settingsPointer: UnsafeMutablePointer<http_parser_settings> = {
    let settings = UnsafeMutablePointer<http_parser_settings>.allocate(capacity: 1)
    http_parser_settings_init(settings)
    settings.pointee.on_message_begin = { owner($0).messageBegin() }
    settings.pointee.on_url = { owner($0).url(buffer($1, $2)) }
    settings.pointee.on_header_field = { owner($0).headerField(buffer($1, $2)) }
    settings.pointee.on_header_value = { owner($0).headerValue(buffer($1, $2)) }
    settings.pointee.on_headers_complete = { owner($0).headersComplete() }
    settings.pointee.on_body = { owner($0).bodyBytes(buffer($1, $2)) }
    settings.pointee.on_message_complete = { owner($0).messageComplete() }
    return settings
}()
