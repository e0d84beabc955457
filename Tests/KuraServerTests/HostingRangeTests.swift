import Foundation
import KuraHTTP
import KuraHosting
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// Range requests on hosted files (cached and streamed), and large files streamed with bounded memory.
@Suite struct HostingRangeTests {
    /// 1000 bytes whose values tell their offsets apart.
    static let content = (0..<1000).map { "\($0 % 10)" }.joined()

    @Test(
        "Range headers parse to one range, the whole file, or unsatisfiable",
        arguments: [
            ("bytes=0-9", ByteRange.partial(offset: 0, count: 10)),
            ("bytes=990-", .partial(offset: 990, count: 10)),
            ("bytes=-10", .partial(offset: 990, count: 10)),
            ("bytes=-5000", .partial(offset: 0, count: 1000)),
            ("bytes=500-5000", .partial(offset: 500, count: 500)),
            ("bytes=999-999", .partial(offset: 999, count: 1)),
            ("BYTES = 1-2", .full), ("Bytes=1-2", .partial(offset: 1, count: 2)),
            ("bytes=1000-", .unsatisfiable), ("bytes=1000-1001", .unsatisfiable), ("bytes=-0", .unsatisfiable),
            ("bytes=5-1", .full), ("bytes=0-1,5-6", .full), ("items=0-1", .full), ("bytes=a-b", .full),
            ("bytes=-", .full), ("bytes=1", .full), ("bytes=+1-2", .full), ("bytes=99999999999999999999-", .full),
        ] as [(String, ByteRange)])
    func parse(header: String, expected: ByteRange) {
        #expect(ByteRange.parse(header, size: 1000) == expected, "\(header)")
    }

    @Test("an empty file satisfies no range")
    func emptyFile() {
        #expect(ByteRange.parse("bytes=0-", size: 0) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=-1", size: 0) == .unsatisfiable)
    }

    /// (Range header, status, Content-Range, body offsets) for a 1000-byte file.
    static let cases: [(String, Int, String?, Range<Int>?)] = [
        ("bytes=0-9", 206, "bytes 0-9/1000", 0..<10),
        ("bytes=10-", 206, "bytes 10-999/1000", 10..<1000),
        ("bytes=-3", 206, "bytes 997-999/1000", 997..<1000),
        ("bytes=995-2000", 206, "bytes 995-999/1000", 995..<1000),
        ("bytes=1000-", 416, "bytes */1000", nil),
        ("bytes=-0", 416, "bytes */1000", nil),
        ("bytes=0-1,4-5", 200, nil, 0..<1000),
        ("lines=1-2", 200, nil, 0..<1000),
        ("bytes=9-2", 200, nil, 0..<1000),
    ]

    @Test(
        "Range on a cached and on a streamed file: 206 with Content-Range, 416 with bytes */size, 200 otherwise",
        arguments: [false, true])
    func ranges(streamed: Bool) throws {
        try withHostingKura(configure: {
            if streamed { try $0.set("hosting.maxCachedFileBytes", "100") }
        }) { server, fixture in
            try fixture.write("data.txt", Self.content)
            let bytes = Array(Self.content.utf8)
            for (range, status, contentRange, slice) in Self.cases {
                let response = try server.request(
                    "GET", "/data.txt", headers: [("Range", range), ("Accept-Encoding", "gzip")], auth: .none)
                #expect(response.status == status, "\(range)")
                #expect(response.header("Content-Range") == contentRange, "\(range)")
                #expect(response.header("Accept-Ranges") == "bytes", "\(range)")
                if let slice {
                    #expect(response.header("Content-Encoding") == nil || status == 200, "\(range)")
                    if response.header("Content-Encoding") == nil {
                        #expect(response.bodyBytes == Array(bytes[slice]), "\(range)")
                        #expect(response.header("Content-Length") == String(slice.count), "\(range)")
                    }
                }
            }
            // HEAD and other methods ignore Range.
            let head = try server.request("HEAD", "/data.txt", headers: [("Range", "bytes=0-9")], auth: .none)
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "1000")
            #expect(head.bodyBytes.isEmpty)
        }
    }

    @Test(
        "If-Range: the current ETag or Last-Modified gets the range, anything else the whole file",
        arguments: [false, true])
    func ifRange(streamed: Bool) throws {
        try withHostingKura(configure: {
            if streamed { try $0.set("hosting.maxCachedFileBytes", "100") }
        }) { server, fixture in
            try fixture.write("data.txt", Self.content)
            let first = try server.request("GET", "/data.txt", auth: .none)
            let etag = try #require(first.header("ETag"))
            let modified = try #require(first.header("Last-Modified"))
            for (condition, status) in [
                (etag, 206), (modified, 206), ("\"other\"", 200), ("W/" + etag, 200),
                ("Thu, 01 Jan 1970 00:00:00 GMT", 200),
            ] {
                let response = try server.request(
                    "GET", "/data.txt", headers: [("Range", "bytes=0-4"), ("If-Range", condition)], auth: .none)
                #expect(response.status == status, "If-Range: \(condition)")
                #expect(response.bodyBytes.count == (status == 206 ? 5 : 1000), "If-Range: \(condition)")
            }
            // A current If-None-Match wins over Range.
            let current = try server.request(
                "GET", "/data.txt", headers: [("Range", "bytes=0-4"), ("If-None-Match", etag)], auth: .none)
            #expect(current.status == 304)
        }
    }

    @Test("a large file streams whole, on keep-alive, with its length; a slow reader holds a bounded buffer")
    func slowReaderOfLargeFile() throws {
        try withHostingKura(configure: { try $0.set("hosting.maxCachedFileBytes", "65536") }) { server, fixture in
            let size = 24 << 20
            var bytes = [UInt8](repeating: 0, count: size)
            for index in stride(from: 0, to: size, by: 4096) { bytes[index] = UInt8(truncatingIfNeeded: index >> 12) }
            try Data(bytes).write(to: URL(fileURLWithPath: fixture.root + "/movie.mp4"))
            let site = try #require(server.kura.hosting)

            let connection = try HTTPConnection(port: server.port, timeout: .seconds(120))
            defer { connection.close() }
            try connection.send(HTTPConnection.encode("GET", "/movie.mp4"))
            // Not reading for a while: the server must stop reading the file, not queue it.
            Thread.sleep(forTimeInterval: 0.5)
            #expect(site.streamCounters.bytesRead < size)
            let response = try connection.readResponse()
            #expect(response.status == 200)
            #expect(response.header("Content-Length") == String(size))
            #expect(response.header("Transfer-Encoding") == nil)
            #expect(response.header("Content-Type") == "video/mp4")
            #expect(response.bodyBytes == bytes)
            #expect(
                site.streamCounters.peakQueuedBytes <= 2 * 64 * 1024 + 1024, "\(site.streamCounters.peakQueuedBytes)")
            // The connection serves the next request: the length framed the body exactly.
            let range = try connection.send("GET", "/movie.mp4", headers: [("Range", "bytes=4096-4097")])
            #expect(range.status == 206)
            #expect(range.bodyBytes == [1, 0])
            #expect(try connection.send("GET", "/app.js").status == 200)
        }
    }

    @Test("a client that stops reading a streamed file is closed after http.idleTimeoutMs, releasing the file")
    func stalledReaderClosed() throws {
        try withHostingKura(configure: {
            try $0.set("hosting.maxCachedFileBytes", "65536")
            $0.http.idleTimeoutMs = 300
        }) { server, fixture in
            let size = 32 << 20
            try Data(count: size).write(to: URL(fileURLWithPath: fixture.root + "/big.bin"))
            let site = try #require(server.kura.hosting)
            let connection = try HTTPConnection(port: server.port, timeout: .seconds(60))
            defer { connection.close() }
            try connection.send(HTTPConnection.encode("GET", "/big.bin"))
            // Reads nothing; the server gives up on it and closes the file.
            let deadline = ContinuousClock.now + .seconds(60)
            while site.streamCounters.bytesRead == 0 && ContinuousClock.now < deadline { usleep(1000) }
            while site.streamCounters.openStreams > 0 && ContinuousClock.now < deadline { usleep(10_000) }
            #expect(site.streamCounters.openStreams == 0)
            #expect(site.streamCounters.bytesRead < size)
            #expect(throws: (any Error).self) { try connection.readResponse() }
        }
    }

    @Test("a client going away mid-stream closes the file and leaves the server serving")
    func clientGoesAway() throws {
        try withHostingKura(configure: { try $0.set("hosting.maxCachedFileBytes", "65536") }) { server, fixture in
            try Data(count: 8 << 20).write(to: URL(fileURLWithPath: fixture.root + "/big.bin"))
            for _ in 0..<5 {
                let connection = try HTTPConnection(port: server.port)
                try connection.send(HTTPConnection.encode("GET", "/big.bin"))
                connection.receiveMore(timeout: .seconds(5))
                connection.close()
            }
            let whole = try server.request("GET", "/big.bin", auth: .none)
            #expect(whole.bodyBytes.count == 8 << 20)
            let site = try #require(server.kura.hosting)
            let deadline = ContinuousClock.now + .seconds(60)
            while site.streamCounters.openStreams > 0 && ContinuousClock.now < deadline { usleep(10_000) }
            #expect(site.streamCounters.openStreams == 0)
        }
    }
}
