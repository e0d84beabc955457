import Foundation

/// One HTTP response as read off the socket, split into its parts.
public struct HTTPResponse: CustomStringConvertible, Sendable {
    /// `HTTP/1.1` or `HTTP/1.0`.
    public var httpVersion = ""
    public var status = 0
    /// The status line and headers, without the blank line.
    public var head = ""
    /// The headers in order, as sent.
    public var headers: [(name: String, value: String)] = []
    /// The body with any chunked framing removed.
    public var bodyBytes: [UInt8] = []

    public init() {}

    /// The body as UTF-8 text.
    public var body: String { String(decoding: bodyBytes, as: UTF8.self) }

    /// The first header called `name` (any letter case).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body parsed as a JSON object (empty if it is not one).
    public var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(bodyBytes), options: [.fragmentsAllowed])) as? [String: Any]
            ?? [:]
    }

    /// `code` of an `{"error":{"code":…,"message":…}}` body; for Firebase's shape, whose `code` is the status, the
    /// code that starts its `message` (`"WEAK_PASSWORD : …"` → `WEAK_PASSWORD`).
    public var errorCode: String? {
        guard let error = json["error"] as? [String: Any] else { return nil }
        if let code = error["code"] as? String { return code }
        guard error["code"] is NSNumber, let message = error["message"] as? String else { return nil }
        return message.components(separatedBy: " : ").first
    }
    /// `message` of an `{"error":{"code":…,"message":…}}` body.
    public var errorMessage: String? { (json["error"] as? [String: Any])?["message"] as? String }

    public var description: String { "\(status) \(body.prefix(300))" }

    /// Parses one response from the front of `bytes`; nil if more bytes are needed. With `complete` (the peer
    /// closed), a response without a length ends at the end of `bytes`. Returns the response and the bytes used.
    public static func parse(_ bytes: [UInt8], head: Bool, complete: Bool) throws -> (HTTPResponse, Int)? {
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        var response = HTTPResponse()
        response.head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
        let lines = response.head.components(separatedBy: "\r\n")
        let statusLine = lines[0].split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw HTTPClientError.malformedResponse("status line '\(lines[0])'")
        }
        response.httpVersion = String(statusLine[0])
        response.status = status
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else {
                throw HTTPClientError.malformedResponse("header '\(line)'")
            }
            response.headers.append(
                (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var at = end.upperBound
        if head || status < 200 || status == 204 || status == 304 { return (response, at) }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            while true {
                guard let lineEnd = bytes[at...].firstRange(of: Array("\r\n".utf8)) else { return nil }
                let sizeText = String(decoding: bytes[at..<lineEnd.lowerBound], as: UTF8.self)
                guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else {
                    throw HTTPClientError.malformedResponse("chunk size '\(sizeText)'")
                }
                let dataEnd = lineEnd.upperBound + size
                guard bytes.count >= dataEnd + 2 else { return nil }
                response.bodyBytes += bytes[lineEnd.upperBound..<dataEnd]
                at = dataEnd + 2
                if size == 0 { return (response, at) }
            }
        }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            guard bytes.count >= at + length else { return nil }
            response.bodyBytes = Array(bytes[at..<at + length])
            return (response, at + length)
        }
        guard complete else { return nil }
        response.bodyBytes = Array(bytes[at...])
        return (response, bytes.count)
    }
}
