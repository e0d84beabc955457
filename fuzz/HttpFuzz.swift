// libFuzzer harness for the HTTP/1.1 request parser (KuraHTTP's RequestParser over libhttp-parser): the byte
// stream a connection reads, pipelined requests included, fed whole, cut at fuzzer-chosen points, and one byte
// at a time. The input is (control, stream) as in FuzzSupport.swift: the control bytes are the pieces' lengths.
// Property: the three feeds report the same events (request begun, 100-continue, each whole request with its
// method, target, headers, body, keep-alive and version) and end in the same outcome (consumed, stopped after a
// closing request, or an error with the same status and code): where a read boundary falls must never change what the server sees.
// And: a stream that ends between requests leaves nothing behind for the next one — a plain request fed after it
// is read as exactly itself (no field of a request before it, a trailer say, may leak into it).
import KuraCore
import KuraHTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func httpFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let (control, stream) = splitInput(data, size)
    let whole = run(stream, pieces: [0..<stream.count])
    let cut = run(stream, pieces: pieces(of: stream.count, control: control))
    require(same(whole, cut), "a split stream parsed differently:\nwhole: \(whole)\nsplit: \(cut)")
    if stream.count <= 2048 {
        let single = run(stream, pieces: (0..<stream.count).map { $0..<($0 + 1) })
        require(
            same(whole, single), "a stream fed byte by byte parsed differently:\nwhole: \(whole)\nbytes: \(single)")
    }
    if let next = requestAfter(stream) {
        require(next == [plainRequestRead], "the request after the stream was read as \(next)")
    }
    return 0
}

/// A request fed after the stream, and how it must be read.
private let plainRequest = Array("GET /next HTTP/1.1\r\nHost: n\r\nX-Next: 1\r\n\r\n".utf8)
private let plainRequestRead = "request GET /next HTTP/1.1 keepAlive=true\nHost: n\nX-Next: 1\nbody=[]"

/// What the parser reports for `plainRequest` fed after `stream`, when the stream ends between requests (nil
/// otherwise: an error, a closing request, or a request cut short).
private func requestAfter(_ stream: [UInt8]) -> [String]? {
    let parser = RequestParser(limits: limits)
    var events: [String] = []
    parser.onEvent = { event in if case .request(let request) = event { events.append(describe(request)) } }
    guard stream.withUnsafeBytes({ parser.feed($0) }) == .consumed, !parser.inMessage else { return nil }
    events = []
    let outcome = plainRequest.withUnsafeBytes { parser.feed($0) }
    return outcome == .consumed ? events : events + ["\(outcome)"]
}

private func describe(_ request: ParsedRequest) -> String {
    let headers = request.headers.fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    return "request \(request.method) \(request.target) HTTP/\(request.version.major).\(request.version.minor) "
        + "keepAlive=\(request.keepAlive)\n\(headers)\nbody=\(request.body)"
}

/// Equal events; or both ending in an error after the same events where one of the errors is a size limit (431,
/// 413). A request both over a limit and malformed may get either answer: http-parser reports the bytes of a header
/// value only once the value ends or the read does, so a syntax error inside a long value is seen before its bytes
/// are counted when the request arrives whole, after them when it arrives a byte at a time.
private func same(_ a: [String], _ b: [String]) -> Bool {
    if a == b { return true }
    guard a.count == b.count, a.dropLast() == b.dropLast(), let x = a.last, let y = b.last,
        x.hasPrefix("failed"), y.hasPrefix("failed")
    else { return false }
    let limits = ["failed 431", "failed 413"]
    return limits.contains(where: x.hasPrefix) || limits.contains(where: y.hasPrefix)
}

/// Small limits, so that the fuzzer reaches 431 and 413.
private let limits = RequestParser.Limits(maxHeaderBytes: 600, maxBodyBytes: 1000)

/// What the parser reported for `stream` fed in `pieces`, as comparable text.
private func run(_ stream: [UInt8], pieces: [Range<Int>]) -> [String] {
    let parser = RequestParser(limits: limits)
    var events: [String] = []
    parser.onEvent = { event in
        switch event {
        case .begin: events.append("begin")
        case .expectContinue: events.append("continue")
        case .request(let request): events.append(describe(request))
        }
    }
    var outcome = RequestParser.Outcome.consumed
    for piece in pieces where outcome == .consumed {
        outcome = stream[piece].withUnsafeBytes { parser.feed($0) }
    }
    if outcome == .consumed {
        // The peer closes after the last byte.
        events.append("inMessage=\(parser.inMessage)")
        outcome = parser.finish()
    }
    switch outcome {
    case .consumed: events.append("consumed")
    case .stopped: events.append("stopped")
    // The status and code, not the message: which of two faults in a request is named first may depend on where
    // http-parser paused (a header name cut short is checked before the character that makes it invalid).
    case .failed(let error): events.append("failed \(error.status) \(error.code)")
    }
    return events
}
