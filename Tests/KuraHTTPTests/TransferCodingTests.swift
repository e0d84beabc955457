import KuraHTTP
import KuraTestSupport
import Testing

/// RFC 9112 §6.1: a request whose transfer codings include one the server does not implement gets 501, never a
/// body read as if it were plain chunked.
@Suite struct TransferCodingTests {
    static let unsupported = [
        "Transfer-Encoding: gzip, chunked\r\n",
        "Transfer-Encoding: deflate,chunked\r\n",
        "Transfer-Encoding: x-custom ;q=1, chunked\r\n",
        "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n",
    ]

    @Test(
        "a transfer coding other than chunked is answered 501 NOT_IMPLEMENTED and the connection closes",
        arguments: unsupported)
    func unsupportedCoding(_ header: String) throws {
        try withTestHTTPServer(routes: { $0.post("/sink") { _, _ in .text("read") } }) { server in
            let client = try server.connect()
            try client.send("POST /sink HTTP/1.1\r\nHost: t\r\n\(header)\r\n5\r\nhello\r\n0\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 501, "\(response.status) \(response.body)")
            #expect(response.errorCode == "NOT_IMPLEMENTED", "body: \(response.body)")
            #expect(response.header("Connection") == "close")
            #expect(client.closes(within: .seconds(3)))
            #expect(server.stillServes())
        }
    }

    @Test("plain chunked (any letter case) is still read")
    func plainChunked() throws {
        try withTestHTTPServer(routes: {
            $0.post("/sink") { request, _ in .text(String(decoding: request.body, as: UTF8.self)) }
        }) {
            server in
            for header in ["Transfer-Encoding: chunked\r\n", "Transfer-Encoding: Chunked \r\n"] {
                let client = try server.connect()
                try client.send("POST /sink HTTP/1.1\r\nHost: t\r\n\(header)\r\n5\r\nhello\r\n0\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.status == 200)
                #expect(response.body == "hello")
            }
        }
    }

    @Test("the same coding twice is malformed")
    func chunkedTwice() throws {
        try withTestHTTPServer(routes: { $0.post("/sink") { _, _ in .noContent } }) { server in
            let client = try server.connect()
            try client.send("POST /sink HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 400)
            #expect(response.errorCode == "MALFORMED_REQUEST", "body: \(response.body)")
        }
    }
}
